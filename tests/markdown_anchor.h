// Where a docs/ link points: GitHub's anchor of a Markdown heading, and whether a file has it.
#pragma once
#include <cctype>
#include <fstream>
#include <string>

namespace tf::test {

// "## 2. Tiled attention, backward" → "2-tiled-attention-backward": lowercase, spaces to '-',
// punctuation dropped. Exact for ASCII headings; a non-ASCII character (an em dash) is dropped too.
inline std::string anchor_of(const std::string& heading) {
    std::string anchor;
    for (const char c : heading.substr(heading.find_first_not_of('#'))) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') anchor += static_cast<char>(std::tolower(c));
        if (c == ' ') anchor += '-';
    }
    return anchor.substr(anchor.find_first_not_of('-'));
}

// True when `path` (a Markdown file) has a heading whose anchor is `anchor`.
inline bool has_heading_anchor(const std::string& path, const std::string& anchor) {
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);)
        if (line.starts_with("#") && anchor_of(line) == anchor) return true;
    return false;
}

}  // namespace tf::test
