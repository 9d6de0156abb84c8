// The comparison's curves as series (analysis/studies/compare_series.h).
#include "analysis/studies/compare_series.h"

#include <algorithm>
#include <cmath>

#include "analysis/studies/wilson_interval.h"

namespace tf {

svg::Series seed_mean_series(const Runs& runs, const std::string& variant, std::vector<double> RunMeasurements::*xs,
                             std::vector<double> RunMeasurements::*ys) {
    svg::Series series{variant, {}, {}};
    int64_t seeds = 0;
    for (const auto& run : runs) {
        if (run.variant != variant) continue;
        const std::vector<double>& curve = run.*ys;
        if (seeds++ == 0) {
            series.x = run.*xs, series.y.assign(curve.size(), 0.0);
            series.low = curve, series.high = curve;
        }
        for (std::size_t i = 0; i < series.y.size() && i < curve.size(); ++i) {
            series.y[i] += curve[i];
            series.low[i] = std::min(series.low[i], curve[i]), series.high[i] = std::max(series.high[i], curve[i]);
        }
    }
    for (double& y : series.y) y /= static_cast<double>(std::max<int64_t>(1, seeds));
    if (seeds < 2) series.low.clear(), series.high.clear();   // one seed has no spread to show
    return series;
}

svg::Series accuracy_by_position_series(const Runs& runs, const std::string& variant) {
    std::vector<double> accuracy, tokens, seeds;   // sums over the seeds with a number at t, and how many
    for (const auto& run : runs) {
        if (run.variant != variant) continue;
        const auto& by_position = run.test.accuracy_by_position;
        if (accuracy.size() < by_position.size())
            accuracy.resize(by_position.size(), 0.0), tokens.resize(by_position.size(), 0.0), seeds.resize(by_position.size(), 0.0);
        for (std::size_t t = 0; t < by_position.size(); ++t)
            if (!std::isnan(by_position[t])) {
                accuracy[t] += by_position[t], seeds[t] += 1;
                if (t < run.test.tokens_by_position.size()) tokens[t] += static_cast<double>(run.test.tokens_by_position[t]);
            }
    }
    svg::Series series{variant, {}, {}};
    for (std::size_t t = 0; t < accuracy.size(); ++t) {
        if (seeds[t] == 0 || tokens[t] / seeds[t] < static_cast<double>(kFewestPositionTokens)) continue;
        const double share = accuracy[t] / seeds[t];
        const ShareInterval band = wilson_interval(share, tokens[t] / seeds[t]);
        series.x.push_back(static_cast<double>(t)), series.y.push_back(share);
        series.low.push_back(band.low), series.high.push_back(band.high);
    }
    return series;
}

}  // namespace tf
