// Foreign text made literal in Markdown (analysis/reports/markdown_text.h).
#include "analysis/reports/markdown_text.h"

#include <cctype>

namespace tf::markdown {

namespace {
bool word_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
}  // namespace

std::string literal(const std::string& text) {
    std::string escaped;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        // An underscore inside a word (compare_poetry) is never emphasis in Markdown: kept readable.
        if (c == '_' && i > 0 && i + 1 < text.size() && word_character(text[i - 1]) && word_character(text[i + 1])) {
            escaped += c;
            continue;
        }
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
