// Foreign text made literal in Markdown (analysis/markdown_text.h).
#include "analysis/markdown_text.h"

namespace tf::markdown {

std::string literal(const std::string& text) {
    std::string escaped;
    for (const char c : text) {
        switch (c) {
            case '&': escaped += "&amp;"; break;
            case '<': escaped += "&lt;"; break;
            case '>': escaped += "&gt;"; break;
            case '"': escaped += "&quot;"; break;
            // Markdown's own marks: code, table cells, emphasis, links, headings, escapes, strikethrough.
            case '`': case '|': case '*': case '_': case '[': case ']': case '#': case '\\': case '~':
                escaped += "&#" + std::to_string(static_cast<int>(c)) + ";";
                break;
            case '\n': case '\r': escaped += ' '; break;
            default: escaped += c;
        }
    }
    return escaped;
}

}  // namespace tf::markdown
