// The comparison's curves as plot series, one per variant: a per-run curve's mean over seeds with a
// band from the lowest to the highest seed, and test accuracy by target position with each
// position's 95 % Wilson band (analysis/studies/wilson_interval.h), so a reader sees which points rest on few.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/studies/compare_columns.h"
#include "analysis/reports/svg.h"

namespace tf {

// Target positions with fewer test tokens than this (in one run) are left out of the plot.
constexpr int64_t kFewestPositionTokens = 10;

// The mean over seeds of a per-run curve (curves of one variant share their x values); with two
// or more seeds, the band spans the lowest to the highest seed at each point.
svg::Series seed_mean_series(const Runs& runs, const std::string& variant, std::vector<double> RunMeasurements::*xs,
                             std::vector<double> RunMeasurements::*ys);

// Test token accuracy at each target position t, mean over seeds; the band is the Wilson interval
// of that share over the position's test tokens in one run (mean over seeds). Positions with fewer
// than kFewestPositionTokens tokens are left out.
svg::Series accuracy_by_position_series(const Runs& runs, const std::string& variant);

}  // namespace tf
