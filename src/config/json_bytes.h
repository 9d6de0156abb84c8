// Bytes that need not be UTF-8 — decoded tokens (a byte-level BPE model samples single bytes), a
// typed argument — in a JSON object we print. A JSON string holds only UTF-8, and nlohmann throws
// when it dumps one that is not, so such text goes in through text_field.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tf::config {

// `bytes` with each byte that does not start a well-formed UTF-8 sequence (config/utf8.h) replaced
// by U+FFFD, the replacement character: valid UTF-8 that reads as the text did.
std::string replace_invalid_utf8(std::string_view bytes);

// object[key] = replace_invalid_utf8(bytes); and when that replaced anything, object[key + "_hex"] =
// the exact bytes as lower-case hex, two digits a byte, so nothing is lost.
void set_text_field(nlohmann::json& object, const std::string& key, std::string_view bytes);

}  // namespace tf::config
