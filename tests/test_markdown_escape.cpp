// Foreign text in a report — a run's name, a path, a typed input — shows as its characters in
// report.md and report.html alike, never as Markdown or HTML markup.
#include "catch.h"

#include "analysis/reports/html_page.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/reports/report.h"
#include "run_helpers.h"
#include "util/files.h"
#include "xml_check.h"

using namespace tf;

TEST_CASE("markdown::literal turns every markup character into a reference and a line break into a space", "[unit]") {
    CHECK(markdown::literal("plain text, 1.5") == "plain text, 1.5");
    CHECK(markdown::literal("<svg onload=\"x\"> & y") == "&lt;svg onload=&quot;x&quot;&gt; &amp; y");
    CHECK(markdown::literal("`a` | *b* _c_ [d](e) \\f ~~g~~") ==
          "&#96;a&#96; &#124; &#42;b&#42; &#95;c&#95; &#91;d&#93;(e) &#92;f &#126;&#126;g&#126;&#126;");
    CHECK(markdown::literal("# title\nnext\r\n") == "&#35; title next  ");
    CHECK(markdown::literal("compare_poetry _x_ a__b") == "compare_poetry &#95;x&#95; a&#95;&#95;b");   // inside a word it stays
}

TEST_CASE("report.html shows the characters markdown::literal's references stand for, in XML's five entities", "[unit]") {
    const std::string hostile = "<svg onload=alert(1)> `x` **y** | &lt;";
    CHECK(html::inline_markup("run " + markdown::literal(hostile) + " `code`") ==
          "run &lt;svg onload=alert(1)&gt; `x` **y** | &amp;lt; <code>code</code>");
    test::TempDir dir;
    Report report(dir.path());
    report.heading(1, "Comparison: " + markdown::literal(hostile));
    report.table({"variant"}, {{markdown::literal("a|b")}});
    report.write();
    const std::string markdown = read_file(dir / "report.md"), page = read_file(dir / "report.html");
    CHECK(markdown.find('<') == std::string::npos);
    CHECK(markdown.find("| a&#124;b |") != std::string::npos);   // one cell, not two
    CHECK(test::xml_problem(page) == "");
    CHECK(page.find("<title>Comparison: &lt;svg onload=alert(1)&gt; `x` **y** | &amp;lt;</title>") != std::string::npos);
    CHECK(page.find("<td>a|b</td>") != std::string::npos);
}
