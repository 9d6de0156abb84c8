// SVG plots: well-formed XML with the expected number of series, points, legend entries and cells;
// bands, markers, dashes, a clipped log axis, a log colour scale and the slide canvas.
#include "catch.h"
#include <cmath>
#include <regex>
#include <sstream>

#include "analysis/reports/report.h"
#include "analysis/reports/svg.h"
#include "xml_check.h"

using namespace tf;

namespace {

// The points="…" of the first element after `marker` (a polyline or polygon), as "x,y" pairs.
std::vector<std::string> points_after(const std::string& text, const std::string& marker) {
    const auto start = text.find("points=\"", text.find(marker));
    std::istringstream points(text.substr(start + 8, text.find('"', start + 8) - start - 8));
    std::vector<std::string> pairs;
    for (std::string pair; points >> pair;) pairs.push_back(pair);
    return pairs;
}

// The fill colour of the heatmap path that draws the cell rectangle `cell` ("M1 0h1v1h-1z").
std::string fill_of_cell(const std::string& text, const std::string& cell) {
    const auto at = text.find(cell);
    if (at == std::string::npos) return "";
    const auto fill = text.rfind("fill=\"", at);
    return text.substr(fill + 6, 7);
}

}  // namespace

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

TEST_CASE("a series with a band draws it as one translucent polygon behind the lines, its ends in the CSV", "[unit]") {
    svg::LinePlot plot{"loss", "step", "loss", {}, false};
    plot.series.push_back({"gru", {0, 1, 2}, {3.0, 2.0, 1.5}, {2.5, 1.8, 1.0}, {3.5, 2.4, 2.0}});
    plot.series.push_back({"plain", {0, 1, 2}, {3.0, 3.0, 3.0}});
    const std::string text = svg::render(plot);
    CHECK(test::xml_problem(text) == "");
    REQUIRE(test::count_occurrences(text, "class=\"band\"") == 1);
    CHECK(text.find("class=\"band\"") < text.find("class=\"series\""));   // drawn first, so under the lines
    CHECK(text.find("fill-opacity=\"0.2\" stroke=\"none\"") != std::string::npos);
    // Upper edge left to right, then the lower edge back: 6 corners, the first and last at x = 0.
    const auto corners = points_after(text, "class=\"band\"");
    REQUIRE(corners.size() == 6);
    CHECK(corners.front().substr(0, corners.front().find(',')) == corners.back().substr(0, corners.back().find(',')));
    // The band reaches 3.5, above every line: the axis grows to hold it.
    CHECK(text.find(">3.5</text>") != std::string::npos);
    const std::string csv = to_csv(plot);
    CHECK(csv.find("series,step,loss,low,high\n") == 0);
    CHECK(csv.find("gru,1,2,1.8,2.4\n") != std::string::npos);
    CHECK(csv.find("plain,1,3,,\n") != std::string::npos);
}

TEST_CASE("markers are drawn on series with few points, or when asked, and not otherwise", "[unit]") {
    std::vector<double> many_x, many_y;
    for (int i = 0; i < 20; ++i) many_x.push_back(i), many_y.push_back(i * i);
    svg::LinePlot plot{"t", "x", "y", {}, false};
    plot.series.push_back({"three", {0, 5, 10}, {1, 2, 3}});            // automatic: few points
    plot.series.push_back({"twenty", many_x, many_y});                   // automatic: too many
    const std::string automatic = svg::render(plot);
    CHECK(test::count_occurrences(automatic, "class=\"marker\"") == 3);
    plot.series[0].markers = svg::Markers::off;
    plot.series[1].markers = svg::Markers::on;
    const std::string explicit_markers = svg::render(plot);
    CHECK(test::count_occurrences(explicit_markers, "class=\"marker\"") == 20);
    CHECK(test::xml_problem(explicit_markers) == "");
}

TEST_CASE("a dashed series is dashed in the plot and in the legend", "[unit]") {
    svg::LinePlot plot{"t", "x", "y", {{"data", {0, 1}, {0, 1}}}, false};
    CHECK(svg::render(plot).find("stroke-dasharray") == std::string::npos);
    plot.series.push_back({"chance", {0, 1}, {0.5, 0.5}});
    plot.series.back().dashed = true;
    const std::string text = svg::render(plot);
    CHECK(test::xml_problem(text) == "");
    CHECK(test::count_occurrences(text, "stroke-dasharray=\"6 4\"") == 2);   // its polyline and its legend line
    const auto chance = text.find("data-name=\"chance\"");
    CHECK(text.find("stroke-dasharray", chance) < text.find("points=", chance));
}

TEST_CASE("a clipped log axis spans the stated decades and draws smaller values at its floor as ▼", "[unit]") {
    svg::LinePlot plot{"gradient", "d", "norm", {{"rnn", {0, 1, 2, 3}, {1.0, 1e-3, 1e-20, 0.0}}}, true};
    plot.log_decades = 8;
    const std::string text = svg::render(plot);
    CHECK(test::xml_problem(text) == "");
    // Every point is on the line: 1e-20 and 0 sit on the floor, the plot area's bottom edge (y = 440 − 60).
    const auto points = points_after(text, "class=\"series\"");
    REQUIRE(points.size() == 4);
    CHECK(points[2].substr(points[2].find(',') + 1) == "380");
    CHECK(points[3].substr(points[3].find(',') + 1) == "380");
    CHECK(points[1].substr(points[1].find(',') + 1) != "380");
    CHECK(test::count_occurrences(text, "class=\"below-floor\"") == 2);
    CHECK(text.find(">1e-08</text>") != std::string::npos);   // the floor's tick
    CHECK(text.find(">1e-20</text>") == std::string::npos);   // and nothing below it
    CHECK(text.find("<title>rnn: d 2, norm 1e-20</title>") != std::string::npos);   // hovering reads the true value
    // The legend says so: "values below / 1e-8 × max are / drawn at the floor".
    CHECK(std::regex_search(text, std::regex(">values below</text>.*>1e-8 × max are</text>.*>drawn at the floor</text>")));
    // Without clipping the same data spans all 20 decades and 0 is left out.
    plot.log_decades = 0;
    const std::string unclipped = svg::render(plot);
    CHECK(points_after(unclipped, "class=\"series\"").size() == 3);
    CHECK(unclipped.find("below-floor") == std::string::npos);
    CHECK(unclipped.find("drawn at the floor") == std::string::npos);
}

TEST_CASE("a log colour scale tells apart values a linear one paints alike, and marks each decade", "[unit]") {
    svg::Heatmap heatmap{"kernel", "j", "i", "K", {{1.0, 1e-3, 1e-5, 1e-9}}, {}, {}};
    const std::string linear = svg::render(heatmap);
    CHECK(fill_of_cell(linear, "M1 0h1v1h-1z") == fill_of_cell(linear, "M2 0h1v1h-1z"));   // both ≈ 0 of 1: one run
    heatmap.log_decades = 6;
    const std::string text = svg::render(heatmap);
    CHECK(test::xml_problem(text) == "");
    const std::string at_1e3 = fill_of_cell(text, "M1 0h1v1h-1z"), at_1e5 = fill_of_cell(text, "M2 0h1v1h-1z");
    REQUIRE(at_1e3.size() == 7);
    CHECK(at_1e3 != at_1e5);
    CHECK(at_1e5 != fill_of_cell(text, "M0 0h1v1h-1z"));
    // 1e-9 lies under the floor 1e-6: the lowest colour, its hover range saying "≤".
    CHECK(std::regex_search(text, std::regex("<title>≤ [0-9.e-]+</title></path>")));
    for (const char* tick : {">1</text>", ">1e-3</text>", ">1e-6</text>"}) CHECK(text.find(tick) != std::string::npos);
    CHECK(text.find("lowest: ≤ 1e-6 × max") != std::string::npos);
}

TEST_CASE("the slide canvas is 1280 by 720 with fonts of at least 22 px and thicker lines, the default the report's", "[unit]") {
    svg::LinePlot plot{"loss", "step", "loss", {{"gru", {0, 1, 2}, {3.0, 2.0, 1.0}}}, false};
    const svg::Heatmap heatmap{"kernel", "j", "i", "K", {{1.0, 0.5}, {0.25, 0.0}}, {}, {}};
    CHECK(svg::render(plot).find("width=\"720\" height=\"440\"") != std::string::npos);
    for (const std::string& text : {svg::render(plot, svg::slide()), svg::render(heatmap, svg::slide())}) {
        CHECK(test::xml_problem(text) == "");
        CHECK(text.find("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1280\" height=\"720\"") == 0);
        const std::regex font_size("font-size=\"([0-9.]+)\"");
        int sizes = 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), font_size); it != std::sregex_iterator(); ++it, ++sizes)
            CHECK(std::stod((*it)[1]) >= 22);
        CHECK(sizes >= 2);   // the document's and the title's at least
    }
    CHECK(svg::render(plot, svg::slide()).find("stroke-width=\"4\" points=") != std::string::npos);
}
