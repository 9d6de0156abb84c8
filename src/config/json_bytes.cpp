// Any bytes as JSON text (config/json_bytes.h).
#include "config/json_bytes.h"

#include "config/utf8.h"

namespace tf::config {

std::string replace_invalid_utf8(std::string_view bytes) {
    std::string text;
    while (const std::optional<std::size_t> bad = first_invalid_utf8(bytes)) {
        text.append(bytes.substr(0, *bad)).append("\xEF\xBF\xBD");   // U+FFFD
        bytes.remove_prefix(*bad + 1);
    }
    return text.append(bytes);
}

void set_text_field(nlohmann::json& object, const std::string& key, std::string_view bytes) {
    if (!first_invalid_utf8(bytes)) {
        object[key] = std::string(bytes);
        return;
    }
    object[key] = replace_invalid_utf8(bytes);
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (const char byte : bytes) {
        const auto value = static_cast<unsigned char>(byte);
        hex += kDigits[value >> 4];
        hex += kDigits[value & 0xF];
    }
    object[key + "_hex"] = hex;
}

}  // namespace tf::config
