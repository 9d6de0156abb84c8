// The attention viewer's page (analysis/reports/attention_viewer.h): it opens on an attention map when there
// is one, says so, labels rows and columns with their tokens and positions, shows a space as "␣",
// captions a row per map kind, and draws the opening map as a static SVG for a page read without scripts.
#include "catch.h"

#include <string>

#include "analysis/reports/attention_viewer.h"
#include "analysis/reports/attention_viewer_heatmap.h"
#include "analysis/reports/html_page.h"
#include "xml_check.h"

using namespace tf;

namespace {

ViewerMap kernel_map() {
    return {"dependency kernel", ViewerMapKind::dependency_kernel, {"a", "b"}, {"a", "b"}, {{1.0, 0.0}, {0.5, 2.0}}};
}

ViewerMap attention_map(const std::string& label, ViewerMapKind kind) {
    return {label, kind, {"<bos>", "a b", "c"}, {"x", " ", "y"}, {{1.0, 0.0, 0.0}, {0.25, 0.75, 0.0}, {0.2, 0.3, 0.5}}};
}

// The <select class="viewer-choice">'s option that carries selected="selected": its label.
std::string selected_option(const std::string& markup) {
    const std::size_t selected = markup.find(" selected=\"selected\">");
    if (selected == std::string::npos) return "";
    const std::size_t start = selected + std::string(" selected=\"selected\">").size();
    return markup.substr(start, markup.find("</option>", start) - start);
}

// The text of the element that opens with `opening` (up to the next '<').
std::string text_after(const std::string& markup, const std::string& opening) {
    const std::size_t at = markup.find(opening);
    if (at == std::string::npos) return "";
    const std::size_t start = at + opening.size();
    return markup.substr(start, markup.find('<', start) - start);
}

}  // namespace

TEST_CASE("visible_token shows a space as ␣ and escapes control and zero-width characters", "[unit]") {
    CHECK(visible_token(" ") == "␣");
    CHECK(visible_token("a b ") == "a␣b␣");
    CHECK(visible_token("\n") == "\\n");
    CHECK(visible_token("\t\r") == "\\t\\r");
    CHECK(visible_token(std::string("\x01\x7f", 2)) == "\\x01\\x7f");
    CHECK(visible_token(std::string(1, '\0')) == "\\x00");
    CHECK(visible_token("a\u00a0b") == "a\\u00a0b");
    CHECK(visible_token("\u200b") == "\\u200b");
    CHECK(visible_token("\ufeffx") == "\\ufeffx");
    // Visible text, multi-byte characters included, stays as it is.
    CHECK(visible_token("<bos>") == "<bos>");
    CHECK(visible_token("é→x") == "é→x");
    CHECK(visible_token("") == "");
}

TEST_CASE("the viewer opens on the first attention map, or on a kernel when no model has attention, and says which",
          "[unit]") {
    // A comparison's list: a GRU's kernel first, then a model with attention.
    const std::vector<ViewerMap> mixed{kernel_map(), attention_map("transformer: encoder.layers.0.self_attn, head 0 (self)",
                                                                   ViewerMapKind::encoder_self_attention),
                                       attention_map("transformer: head 1", ViewerMapKind::encoder_self_attention), kernel_map()};
    CHECK(opening_map(mixed) == 1);
    const std::string markup = attention_viewer_html({{"an example", mixed}});
    CHECK(test::count_occurrences(markup, "selected=\"selected\"") == 1);
    CHECK(selected_option(markup) == "transformer: encoder.layers.0.self_attn, head 0 (self)");
    CHECK(markup.find("opens on the first attention map in its list: <strong>transformer: encoder.layers.0.self_attn, head 0 "
                      "(self)</strong>") != std::string::npos);
    CHECK(text_after(markup, "<p class=\"viewer-caption\">") == html::escape(viewer_caption(ViewerMapKind::encoder_self_attention)));

    const std::vector<ViewerMap> kernels_only{kernel_map()};
    CHECK(opening_map(kernels_only) == 0);
    const std::string kernel_page = attention_viewer_html({{"an example", kernels_only}});
    CHECK(selected_option(kernel_page) == "dependency kernel");
    CHECK(kernel_page.find("No model here has attention, so the viewer opens on a dependency kernel") != std::string::npos);
    CHECK(text_after(kernel_page, "<p class=\"viewer-caption\">") == html::escape(viewer_caption(ViewerMapKind::dependency_kernel)));
}

TEST_CASE("the viewer's caption says what a row is: the next token for a decoder, the source for cross-attention, "
          "nothing predicted for an encoder",
          "[unit]") {
    const std::string causal = viewer_caption(ViewerMapKind::causal_self_attention);
    CHECK(causal.find("row i is the query at position i, which predicts token i + 1") != std::string::npos);
    CHECK(causal.find("masked") != std::string::npos);
    const std::string cross = viewer_caption(ViewerMapKind::cross_attention);
    CHECK(cross.find("row i is the decoder's query at position i") != std::string::npos);
    CHECK(cross.find("attends over the source") != std::string::npos);
    const std::string encoder = viewer_caption(ViewerMapKind::encoder_self_attention);
    CHECK(encoder.find("row i is the query at source position i") != std::string::npos);
    CHECK(encoder.find("predicts nothing") != std::string::npos);
    CHECK(encoder.find("i + 1") == std::string::npos);
    const std::string kernel = viewer_caption(ViewerMapKind::dependency_kernel);
    CHECK(kernel.find("row i is the output at position i, which predicts token i + 1") != std::string::npos);
    CHECK(kernel.find("column j is the input at position j") != std::string::npos);
    // Each map's option carries its own caption, for the script to show when the map is chosen.
    const std::string markup = attention_viewer_html(
        {{"x", {attention_map("decoder self", ViewerMapKind::causal_self_attention), attention_map("cross", ViewerMapKind::cross_attention)}}});
    CHECK(markup.find("data-caption=\"" + html::escape(causal) + "\" selected=\"selected\">decoder self</option>") != std::string::npos);
    CHECK(markup.find("data-caption=\"" + html::escape(cross) + "\">cross</option>") != std::string::npos);
}

TEST_CASE("the viewer's static SVG labels every query row and key column with position and token, a space as ␣",
          "[unit]") {
    const ViewerMap map = attention_map("m", ViewerMapKind::causal_self_attention);
    const std::string svg = viewer_heatmap_svg(map);
    CHECK(test::xml_problem(svg) == "");
    CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"viewer-heatmap\"", 0) == 0);
    // Rows (queries) end at the grid's left edge, columns (keys) are rotated above it.
    CHECK(svg.find("text-anchor=\"end\"><tspan fill=\"#888\">0</tspan> &lt;bos&gt;</text>") != std::string::npos);
    CHECK(svg.find("text-anchor=\"end\"><tspan fill=\"#888\">1</tspan> a␣b</text>") != std::string::npos);
    CHECK(svg.find("text-anchor=\"end\"><tspan fill=\"#888\">2</tspan> c</text>") != std::string::npos);
    CHECK(svg.find("rotate(-90)\"><tspan fill=\"#888\">0</tspan> x</text>") != std::string::npos);
    CHECK(svg.find("rotate(-90)\"><tspan fill=\"#888\">1</tspan> ␣</text>") != std::string::npos);
    CHECK(svg.find("rotate(-90)\"><tspan fill=\"#888\">2</tspan> y</text>") != std::string::npos);
    CHECK(test::count_occurrences(svg, "rotate(-90)") == 3);
    CHECK(test::count_occurrences(svg, "text-anchor=\"end\"") == 3);
    // Shades over each row's largest: row 0's and row 1's largest and row 2's 0.5 are full (16/16);
    // row 1's 0.25 is a third of its largest (5/16), row 2's 0.2 and 0.3 are 6/16 and 10/16; zeros blank.
    CHECK(svg.find("fill-opacity=\"1\" d=\"M0 0h1v1h-1zM1 1h1v1h-1zM2 2h1v1h-1z\"") != std::string::npos);
    CHECK(svg.find("fill-opacity=\"0.3125\" d=\"M0 1h1v1h-1z\"") != std::string::npos);
    CHECK(svg.find("fill-opacity=\"0.375\" d=\"M0 2h1v1h-1z\"") != std::string::npos);
    CHECK(svg.find("fill-opacity=\"0.625\" d=\"M1 2h1v1h-1z\"") != std::string::npos);
    CHECK(test::count_occurrences(svg, "<path ") == 4);
}

TEST_CASE("the viewer's page holds the opening map as a static SVG, its tokens visible, and is valid XML", "[unit]") {
    const std::vector<ViewerMap> maps{kernel_map(), attention_map("attention", ViewerMapKind::cross_attention)};
    const std::string markup = attention_viewer_html({{"a b & c", maps}, {"d", maps}});
    CHECK(test::xml_problem(markup) == "");
    CHECK(test::count_occurrences(markup, "<svg ") == 1);
    // The static picture is the opening map (the attention map, 3 × 3), not the kernel (2 × 2).
    const std::size_t figure = markup.find("<figure class=\"viewer-static\">");
    REQUIRE(figure != std::string::npos);
    const std::string svg = markup.substr(figure, markup.find("</figure>", figure) - figure);
    CHECK(test::count_occurrences(svg, "rotate(-90)") == 3);
    CHECK(svg.find("&lt;bos&gt;") != std::string::npos);
    CHECK(markup.find("The opening map on the first example (\"a b &amp; c\")") != std::string::npos);
    // The grid the script fills sits beside it, and the JSON carries the tokens as the grid shows them.
    CHECK(markup.find("</figure>\n<div class=\"viewer-grid\"></div>") != std::string::npos);
    CHECK(markup.find("\"keys\":[\"x\",\"␣\",\"y\"]") != std::string::npos);
    CHECK(markup.find("\"queries\":[\"\\u003cbos\\u003e\",\"a␣b\",\"c\"]") != std::string::npos);
}
