// A comparison small enough for a test (tests/data/tiny_comparison.json, which the browser test
// uses too): three variants (a GRU, the GRU with additive attention, a transformer) × two seeds,
// 6 steps each, on a short copy task.
#pragma once
#include <string>

#include "util/files.h"
#include "source_paths.h"

namespace tf::test {

inline const std::string kTinyComparisonPath = std::string(TF_SOURCE_DIR) + "/tests/data/tiny_comparison.json";

inline std::string tiny_comparison() { return read_file(kTinyComparisonPath); }

}  // namespace tf::test
