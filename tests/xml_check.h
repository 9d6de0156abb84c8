// A small XML well-formedness check for the SVG and HTML the reports write: balanced and properly
// nested tags, quoted attributes, and only the five predefined entities (declarations such as
// <!DOCTYPE html> are skipped). Returns "" or the first problem.
#pragma once
#include <cctype>
#include <string>
#include <vector>

namespace tf::test {

// The length of the predefined entity starting at text[at] ('&'), or 0 if it is not one.
inline std::size_t entity_length(const std::string& text, std::size_t at) {
    for (const char* entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
        if (text.compare(at, std::char_traits<char>::length(entity), entity) == 0) return std::char_traits<char>::length(entity);
    return 0;
}

inline std::string xml_problem(const std::string& text) {
    std::vector<std::string> open;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '&') {
            const std::size_t length = entity_length(text, i);
            if (length == 0) return "bad entity at " + std::to_string(i);
            i += length;
            continue;
        }
        if (text[i] != '<') {
            ++i;
            continue;
        }
        const std::size_t end = text.find('>', i);
        if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
        std::string tag = text.substr(i + 1, end - i - 1);
        i = end + 1;
        if (tag.empty()) return "empty tag";
        if (tag[0] == '!' || tag[0] == '?') continue;   // <!DOCTYPE html>, <?xml …?>: declarations, not elements
        if (tag[0] == '/') {
            const std::string name = tag.substr(1);
            if (open.empty() || open.back() != name) return "mismatched </" + name + ">";
            open.pop_back();
            continue;
        }
        const bool self_closing = tag.back() == '/';
        if (self_closing) tag.pop_back();
        std::size_t quotes = 0;
        for (char c : tag) quotes += c == '"';
        if (quotes % 2) return "unbalanced quotes in <" + tag + ">";
        if (tag.find('<') != std::string::npos) return "'<' inside a tag";
        for (std::size_t at = tag.find('&'); at != std::string::npos; at = tag.find('&', at + 1))
            if (entity_length(tag, at) == 0) return "bad entity in <" + tag + ">";
        std::size_t name_end = 0;
        while (name_end < tag.size() && !std::isspace(static_cast<unsigned char>(tag[name_end]))) ++name_end;
        if (!self_closing) open.push_back(tag.substr(0, name_end));
    }
    return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

inline std::size_t count_occurrences(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
    return count;
}

}  // namespace tf::test
