// The viewer's markup and data (analysis/attention_viewer.h); its behaviour is in the page's script
// (analysis/html_page.cpp, show_attention).
#include "analysis/attention_viewer.h"

#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "analysis/html_page.h"
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


std::string option(std::size_t value, const std::string& label) {
    return "<option value=\"" + std::to_string(value) + "\">" + html::escape(label) + "</option>";
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
    return {{"label", map.label}, {"queries", map.queries}, {"keys", map.keys}, {"weights", weights}};
}

}  // namespace

std::string attention_viewer_html(const std::vector<ViewerExample>& examples) {
    if (examples.empty() || examples.front().maps.empty())
        return "<p>No attention maps to view: this model has no attention.</p>\n";
    nlohmann::json data = nlohmann::json::array();
    std::string example_options, map_options;
    for (std::size_t e = 0; e < examples.size(); ++e) {
        if (examples[e].maps.size() != examples.front().maps.size())
            throw ValueError("attention viewer: example " + std::to_string(e) + " has " + std::to_string(examples[e].maps.size()) +
                             " maps, the first " + std::to_string(examples.front().maps.size()));
        nlohmann::json maps = nlohmann::json::array();
        for (const ViewerMap& map : examples[e].maps) maps.push_back(map_json(map));
        data.push_back({{"label", examples[e].label}, {"maps", maps}});
        example_options += option(e, examples[e].label);
    }
    for (std::size_t m = 0; m < examples.front().maps.size(); ++m) map_options += option(m, examples.front().maps[m].label);
    return "<section class=\"attention-viewer\">\n<p><label>Example: <select class=\"viewer-example\">" + example_options +
           "</select></label></p>\n<p><label>Map: <select class=\"viewer-choice\">" + map_options +
           "</select></label> Hover a query token (left) to see its weights over the keys (right); a key's tooltip "
           "gives the number.</p>\n<div class=\"viewer-tokens\"><div class=\"queries\"></div><div class=\"keys\"></div></div>\n"
           "<script type=\"application/json\" class=\"attention-data\">" + script_safe_json(data) + "</script>\n</section>\n";
}

}  // namespace tf
