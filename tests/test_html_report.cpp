// report.html beside report.md: the same headings, paragraphs, tables and plots as one offline
// page — escaped text, `code` marked up, sortable tables, the SVG inline, a script only for sorting.
#include "catch.h"

#include <filesystem>

#include "analysis/html_page.h"
#include "analysis/report.h"
#include "run_helpers.h"
#include "util/files.h"
#include "xml_check.h"

using namespace tf;

TEST_CASE("report text becomes escaped HTML with code and bold marked up", "[unit]") {
    CHECK(html::escape("a < b & \"c\" > d") == "a &lt; b &amp; &quot;c&quot; &gt; d");
    CHECK(html::inline_markup("run `tapeformer <x>` **now** & then") ==
          "run <code>tapeformer &lt;x&gt;</code> <strong>now</strong> &amp; then");
    CHECK(html::inline_markup("an `unclosed span") == "an <code>unclosed span</code>");
}

TEST_CASE("a report writes report.html with its headings, sortable tables and inline plots, well-formed and offline",
          "[unit]") {
    test::TempDir dir;
    Report report(dir.path());
    report.heading(1, "Comparison: <tiny>");
    report.paragraph("Command: `tapeformer compare tiny.json`.");
    report.table({"variant", "loss"}, {{"gru", "1.5 ± 0.1"}, {"transformer", "0.9"}});
    report.plot("loss", svg::LinePlot{"Training loss", "step", "loss", {{"gru", {1, 2}, {2.0, 1.5}}}, false});
    CHECK(report.write() == dir / "report.md");
    const std::string page = read_file(dir / "report.html");
    CHECK(test::xml_problem(page) == "");
    CHECK(page.find("<title>Comparison: &lt;tiny&gt;</title>") != std::string::npos);
    CHECK(page.find("<h1>Comparison: &lt;tiny&gt;</h1>") != std::string::npos);
    CHECK(page.find("<code>tapeformer compare tiny.json</code>") != std::string::npos);
    CHECK(page.find("<table class=\"sortable\">") != std::string::npos);
    CHECK(test::count_occurrences(page, "<td>") == 4);
    CHECK(page.find("<svg xmlns") != std::string::npos);   // the plot inline, not linked
    CHECK(page.find("href=\"plots/loss.csv\"") != std::string::npos);
    CHECK(page.find("window.onerror") != std::string::npos);
    // Nothing fetched: no src= and no link to another site (the one URL is the SVG namespace).
    CHECK(page.find(" src=") == std::string::npos);
    CHECK(test::count_occurrences(page, "http") == test::count_occurrences(page, "xmlns=\"http://www.w3.org/2000/svg\""));
}
