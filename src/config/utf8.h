// Checking that bytes are UTF-8 before they reach JSON, which can only hold valid UTF-8
// (nlohmann throws when it dumps a string that is not).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace tf::config {

// The offset of the first byte that does not start or continue a well-formed UTF-8 sequence
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or nullopt if all are.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace tf::config
