// The viewer's markup and data (analysis/reports/attention_viewer.h); its behaviour is in the page's script
// (analysis/reports/html_page.cpp, show_attention).
#include "analysis/reports/attention_viewer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <utility>

#include <nlohmann/json.hpp>

#include "analysis/reports/attention_viewer_heatmap.h"
#include "analysis/reports/html_page.h"
#include "autograd/error.h"

namespace tf {

namespace {

// JSON safe inside a <script> element: '<', '>' and '&' (tokens such as "<bos>") as \u escapes,
// which only occur inside JSON strings, so the data stays the same.
std::string script_safe_json(const nlohmann::json& data) {
    std::string safe;
    for (const char c : data.dump()) {
        if (c == '<') safe += "\\u003c";
        else if (c == '>') safe += "\\u003e";
        else if (c == '&') safe += "\\u0026";
        else safe += c;
    }
    return safe;
}


std::string option(std::size_t value, const std::string& label, const std::string& attributes = "") {
    return "<option value=\"" + std::to_string(value) + "\"" + attributes + ">" + html::escape(label) + "</option>";
}

std::vector<std::string> visible_tokens(const std::vector<std::string>& tokens) {
    std::vector<std::string> shown;
    for (const std::string& token : tokens) shown.push_back(visible_token(token));
    return shown;
}

// A weight to 6 significant digits (the tooltip shows 4 decimals): a page with 24 maps of 3
// examples stays under 2 MB, where 17 digits a number did not.
double six_digits(double weight) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", weight);
    return std::strtod(text, nullptr);
}

nlohmann::json map_json(const ViewerMap& map) {
    nlohmann::json weights = nlohmann::json::array();
    for (const std::vector<double>& row : map.weights) {
        nlohmann::json rounded = nlohmann::json::array();
        for (const double weight : row) rounded.push_back(six_digits(weight));
        weights.push_back(rounded);
    }
    return {{"label", map.label}, {"queries", visible_tokens(map.queries)}, {"keys", visible_tokens(map.keys)}, {"weights", weights}};
}

// The sentence above the grid: which map the viewer opened on, and why that one.
std::string opening_sentence(const ViewerMap& map) {
    if (map.kind == ViewerMapKind::dependency_kernel)
        return "No model here has attention, so the viewer opens on a dependency kernel: <strong>" + html::escape(map.label) + "</strong>.";
    return "The viewer opens on the first attention map in its list: <strong>" + html::escape(map.label) + "</strong>.";
}

}  // namespace

std::size_t opening_map(const std::vector<ViewerMap>& maps) {
    const auto attention = std::find_if(maps.begin(), maps.end(), [](const ViewerMap& map) { return map.kind != ViewerMapKind::dependency_kernel; });
    return attention == maps.end() ? 0 : static_cast<std::size_t>(attention - maps.begin());
}

std::string viewer_caption(ViewerMapKind kind) {
    switch (kind) {
        case ViewerMapKind::causal_self_attention:
            return "Causal self-attention (a language model's or a decoder's): row i is the query at position i, which predicts "
                   "token i + 1; it sees the keys at positions 0 to i, across (later ones are masked).";
        case ViewerMapKind::encoder_self_attention:
            return "Encoder self-attention: row i is the query at source position i; it attends over the whole source, across "
                   "(no mask), and predicts nothing itself: the decoder reads the encoder's output through cross-attention.";
        case ViewerMapKind::cross_attention:
            return "Cross-attention (a decoder's attention over the source, a recurrent decoder's included): row i is the "
                   "decoder's query at position i (where the decoder predicts token i + 1); it attends over the source, whose "
                   "tokens run across.";
        case ViewerMapKind::dependency_kernel:
            return "Dependency kernel K(i, j) = ||dy_i/dx_j||: row i is the output at position i, which predicts token i + 1; "
                   "column j is the input at position j, and a cell is how strongly that output depends on that input.";
    }
    return "";
}

std::string attention_viewer_html(const std::vector<ViewerExample>& examples) {
    if (examples.empty() || examples.front().maps.empty())
        return "<p>No attention maps to view: this model has no attention.</p>\n";
    const std::vector<ViewerMap>& first_maps = examples.front().maps;
    nlohmann::json data = nlohmann::json::array();
    std::string example_options, map_options;
    for (std::size_t e = 0; e < examples.size(); ++e) {
        if (examples[e].maps.size() != first_maps.size())
            throw ValueError("attention viewer: example " + std::to_string(e) + " has " + std::to_string(examples[e].maps.size()) +
                             " maps, the first " + std::to_string(first_maps.size()));
        nlohmann::json maps = nlohmann::json::array();
        for (const ViewerMap& map : examples[e].maps) maps.push_back(map_json(map));
        data.push_back({{"label", examples[e].label}, {"maps", maps}});
        example_options += option(e, examples[e].label);
    }
    const std::size_t opening = opening_map(first_maps);
    for (std::size_t m = 0; m < first_maps.size(); ++m)
        map_options += option(m, first_maps[m].label,
                              " data-caption=\"" + html::escape(viewer_caption(first_maps[m].kind)) + "\"" + (m == opening ? " selected=\"selected\"" : ""));
    const ViewerMap& shown = first_maps[opening];
    return "<section class=\"attention-viewer\">\n<p><label>Example: <select class=\"viewer-example\">" + example_options +
           "</select></label></p>\n<p><label>Map: <select class=\"viewer-choice\">" + map_options + "</select></label></p>\n<p class=\"viewer-opening\">" +
           opening_sentence(shown) + "</p>\n<p class=\"viewer-caption\">" + html::escape(viewer_caption(shown.kind)) +
           "</p>\n<div class=\"viewer-views\">\n<figure class=\"viewer-static\">" + viewer_heatmap_svg(shown) +
           "<figcaption>The opening map on the first example (\"" + html::escape(examples.front().label) +
           "\"), drawn without a script: queries down, keys across, a cell's shade its weight over its row's largest. The grid beside it, drawn by the "
           "page's script, follows the choices above: hover a cell for its number.</figcaption></figure>\n"
           "<div class=\"viewer-grid\"></div>\n</div>\n<script type=\"application/json\" class=\"attention-data\">" + script_safe_json(data) +
           "</script>\n</section>\n";
}

}  // namespace tf
