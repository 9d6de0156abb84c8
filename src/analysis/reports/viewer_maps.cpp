// A token as the viewer shows it (analysis/reports/viewer_maps.h).
#include "analysis/reports/viewer_maps.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <utility>

namespace tf {

namespace {

// The invisible characters visible_token escapes that are not control characters, in UTF-8.
constexpr std::pair<const char*, const char*> kInvisible[] = {
    {"\u00A0", "\\u00a0"}, {"\u200B", "\\u200b"}, {"\u200C", "\\u200c"},
    {"\u200D", "\\u200d"}, {"\u2060", "\\u2060"}, {"\uFEFF", "\\ufeff"},
};

}  // namespace

std::string visible_token(const std::string& token) {
    std::string shown;
    for (std::size_t i = 0; i < token.size(); ++i) {
        const auto byte = static_cast<unsigned char>(token[i]);
        const auto invisible = std::find_if(std::begin(kInvisible), std::end(kInvisible),
                                            [&](const auto& pair) { return token.compare(i, std::char_traits<char>::length(pair.first), pair.first) == 0; });
        if (byte == ' ') shown += "\u2423";   // ␣
        else if (byte == '\t') shown += "\\t";
        else if (byte == '\n') shown += "\\n";
        else if (byte == '\r') shown += "\\r";
        else if (byte < 0x20 || byte == 0x7F) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            shown += escaped;
        } else if (invisible != std::end(kInvisible)) {
            shown += invisible->second;
            i += std::char_traits<char>::length(invisible->first) - 1;
        } else {
            shown += token[i];
        }
    }
    return shown;
}

}  // namespace tf
