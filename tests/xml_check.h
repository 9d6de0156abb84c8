// A small XML well-formedness check for the SVG the reports write: balanced and properly nested
// tags, quoted attributes, and only the five predefined entities. Returns "" or the first problem.
#pragma once
#include <cctype>
#include <string>
#include <vector>

namespace tf::test {

inline std::string xml_problem(const std::string& text) {
    std::vector<std::string> open;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '&') {
            const std::size_t end = text.find(';', i);
            const std::string entity = end == std::string::npos ? "" : text.substr(i, end - i + 1);
            if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&apos;")
                return "bad entity at " + std::to_string(i);
            i = end + 1;
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
