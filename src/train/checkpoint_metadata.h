// Reading a checkpoint's metadata values back exactly as save_checkpoint writes them: a count is
// plain decimal digits (std::to_string), a real number is what printf's "%.17g" prints. Any other
// text was not written by tapeformer and is refused, naming the file and the key, so a step of
// "1e30" or "-5" never becomes a step count.
#pragma once
#include <cstdint>
#include <string>

namespace tf::train {

// Plain digits ("0", "120"; no sign, space, leading zero or exponent) for a count in [0, max].
// `max_name` says what the upper bound is in the message ("step 12").
int64_t parse_count_field(const std::string& text, const std::string& key, const std::string& path,
                          int64_t max = INT64_MAX, const std::string& max_name = "2^63 - 1");

// Which real numbers a field holds.
enum class RealRange { finite, non_negative };

// "%.17g" of a finite double ("0", "1.5", "-2.5e-07"); "nan", "inf", "0x10" and " 4" are refused.
double parse_real_field(const std::string& text, const std::string& key, const std::string& path, RealRange range);

}  // namespace tf::train
