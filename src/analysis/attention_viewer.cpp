// The viewer's markup and data (analysis/attention_viewer.h); its behaviour is in the page's script
// (analysis/html_page.cpp, show_attention).
#include "analysis/attention_viewer.h"

#include <nlohmann/json.hpp>

#include "analysis/html_page.h"

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

}  // namespace

std::string attention_viewer_html(const std::vector<ViewerMap>& maps) {
    if (maps.empty()) return "<p>No attention maps to view: this model has no attention.</p>\n";
    nlohmann::json data = nlohmann::json::array();
    std::string options;
    for (std::size_t m = 0; m < maps.size(); ++m) {
        data.push_back({{"label", maps[m].label}, {"queries", maps[m].queries}, {"keys", maps[m].keys},
                        {"weights", maps[m].weights}});
        options += "<option value=\"" + std::to_string(m) + "\">" + html::escape(maps[m].label) + "</option>";
    }
    return "<section class=\"attention-viewer\">\n<p><label>Map: <select class=\"viewer-choice\">" + options +
           "</select></label> Hover a query token (left) to see its weights over the keys (right); a key's tooltip "
           "gives the number.</p>\n<div class=\"viewer-tokens\"><div class=\"queries\"></div><div class=\"keys\"></div></div>\n"
           "<script type=\"application/json\" class=\"attention-data\">" + script_safe_json(data) + "</script>\n</section>\n";
}

}  // namespace tf
