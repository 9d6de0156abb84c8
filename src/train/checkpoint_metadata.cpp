// Strict parsing of checkpoint metadata: the grammar first (so strtod's leniencies — spaces, hex,
// "inf" — never apply), then the range.
#include "train/checkpoint_metadata.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "autograd/error.h"
#include "config/json_reader.h"

namespace tf::train {

namespace {
// The longest text either writer form produces ("-2.2250738585072014e-308" is 24 characters);
// checked before the regex, whose matcher recurses once per character.
constexpr std::size_t kMaxFieldChars = 32;

[[noreturn]] void refuse(const std::string& text, const std::string& key, const std::string& path, const std::string& expected) {
    throw CheckpointError(path + ": metadata '" + key + "' is " + config::describe(config::Json(text)) + ", expected " + expected);
}
}  // namespace

int64_t parse_count_field(const std::string& text, const std::string& key, const std::string& path, int64_t max,
                          const std::string& max_name) {
    const std::string expected = "a whole number in [0, " + max_name + "] in plain digits";
    static const std::regex digits("0|[1-9][0-9]*");
    if (text.size() > kMaxFieldChars || !std::regex_match(text, digits)) refuse(text, key, path, expected);
    errno = 0;
    const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE || value > static_cast<unsigned long long>(max)) refuse(text, key, path, expected);
    return static_cast<int64_t>(value);
}

double parse_real_field(const std::string& text, const std::string& key, const std::string& path, RealRange range) {
    const std::string expected = range == RealRange::non_negative ? "a finite number ≥ 0" : "a finite number";
    static const std::regex printed(R"(-?[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?)");
    if (text.size() > kMaxFieldChars || !std::regex_match(text, printed)) refuse(text, key, path, expected);
    const double value = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(value) || (range == RealRange::non_negative && value < 0)) refuse(text, key, path, expected);
    return value;
}

}  // namespace tf::train
