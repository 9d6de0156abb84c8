// SVG plots: well-formed XML with the expected number of series, points, legend entries and cells.
#include "catch.h"
#include <cmath>

#include "analysis/svg.h"
#include "xml_check.h"

using namespace tf;

TEST_CASE("a line plot is well-formed XML with one polyline per series and every point", "[unit]") {
    svg::LinePlot plot{"loss <train & valid>", "step", "loss", {}, false};
    plot.series.push_back({"gru", {0, 1, 2, 3}, {4.0, 3.0, 2.5, 2.0}});
    plot.series.push_back({"transformer \"big\"", {0, 1, 2}, {4.0, 2.0, 1.0}});
    const std::string text = svg::render(plot);
    CHECK(test::xml_problem(text) == "");
    CHECK(test::count_occurrences(text, "class=\"series\"") == 2);
    CHECK(test::count_occurrences(text, "class=\"legend\"") == 2);
    const auto first = text.find("points=\"", text.find("data-name=\"gru\""));
    const std::string points = text.substr(first + 8, text.find('"', first + 8) - first - 8);
    CHECK(test::count_occurrences(points, ",") == 4);
    CHECK(text.find("loss &lt;train &amp; valid&gt;") != std::string::npos);
    // Every point has a hover read-out of its values.
    CHECK(test::count_occurrences(text, "class=\"point\"") == 7);
    CHECK(text.find("<title>gru: step 2, loss 2.5</title>") != std::string::npos);
}

TEST_CASE("non-finite points and non-positive values on a log axis are skipped", "[unit]") {
    svg::LinePlot plot{"t", "x", "y", {{"s", {0, 1, 2, 3}, {1.0, NAN, 0.0, 10.0}}}, true};
    const std::string text = svg::render(plot);
    CHECK(test::xml_problem(text) == "");
    const auto first = text.find("points=\"");
    const std::string points = text.substr(first + 8, text.find('"', first + 8) - first - 8);
    CHECK(test::count_occurrences(points, ",") == 2);
}

TEST_CASE("a heatmap draws every cell once, a run of one colour as one rectangle, and a colour bar", "[unit]") {
    svg::Heatmap heatmap{"attention", "key", "query", "weight", {{0.1, 0.9, 0.0}, {0.5, 0.5, 0.0}}, {"a", "b", "<c>"}, {}};
    const std::string text = svg::render(heatmap);
    CHECK(test::xml_problem(text) == "");
    // Five rectangles in cell units: row 0's three cells differ; row 1's two 0.5s are one run.
    CHECK(test::count_occurrences(text, "v1h-") == 5);
    CHECK(text.find("M0 1h2v1h-2z") != std::string::npos);   // the run of 0.5s
    CHECK(text.find("M2 0h1v1h-1z") != std::string::npos);   // row 0's 0.0 ...
    CHECK(text.find("M2 1h1v1h-1z") != std::string::npos);   // ... and row 1's, in the same colour's path:
    CHECK(test::count_occurrences(text, "class=\"cells\"") == 4);   // 0.0, 0.1, 0.5 and 0.9
    CHECK(text.find("<title>0 to 0.01406</title>") != std::string::npos);   // hovering shows a colour's values
    CHECK(text.find("&lt;c&gt;") != std::string::npos);
    CHECK(text.find(">weight<") != std::string::npos);
}

TEST_CASE("a heatmap's non-finite cell is white and a constant map one colour", "[unit]") {
    const std::string with_nan = svg::render(svg::Heatmap{"m", "x", "y", "v", {{0.2, std::nan("")}}, {}, {}});
    CHECK(with_nan.find("fill=\"#ffffff\" d=\"M1 0h1v1h-1z\"><title>not a number</title>") != std::string::npos);
    const std::string constant = svg::render(svg::Heatmap{"m", "x", "y", "v", {{3, 3}, {3, 3}}, {}, {}});
    CHECK(test::count_occurrences(constant, "class=\"cells\"") == 1);
    CHECK(constant.find("<title>3</title>") != std::string::npos);
}

TEST_CASE("nice ticks are round numbers covering the range", "[unit]") {
    CHECK(svg::nice_ticks(0, 10, 5) == std::vector<double>{0, 2, 4, 6, 8, 10});
    CHECK(svg::nice_ticks(0.13, 0.87, 4) == std::vector<double>{0.2, 0.4, 0.6, 0.8});
    CHECK(svg::nice_ticks(3, 3) == std::vector<double>{3});
}

TEST_CASE("the XML check itself catches broken documents", "[unit]") {
    CHECK(test::xml_problem("<a><b></a></b>") != "");
    CHECK(test::xml_problem("<a x=\"1></a>") != "");
    CHECK(test::xml_problem("<a>&nbsp;</a>") != "");
    CHECK(test::xml_problem("<a x=\"a & b\"/>") != "");   // a bare & inside an attribute
    CHECK(test::xml_problem("<a x=\"a &amp; b\">&lt;</a>") == "");
    CHECK(test::xml_problem("<a>") != "");
    CHECK(test::xml_problem("<a><b/></a>") == "");
}
