// The range of every seed: a run config's `seed` and `data.seed`, a comparison's `seeds`, and
// `--seed` on the command line. A value outside it is refused, never clamped or wrapped into it:
// another seed is another experiment.
#pragma once
#include "config/json_reader.h"

namespace tf::config {

inline constexpr IntegerRange kSeedRange{.min = 0};

}  // namespace tf::config
