// One number per run of a comparison, gathered by variant: the columns the report's tables, its
// predictions and its findings read from the measured runs (analysis/studies/compare_runs.h).
#pragma once
#include <string>
#include <vector>

#include "analysis/studies/compare_runs.h"

namespace tf {

using Runs = std::vector<RunMeasurements>;

// One number per run of `variant` (one per seed, in the config's seed order): a field of the run ...
inline std::vector<double> collect(const Runs& runs, const std::string& variant, double RunMeasurements::*field) {
    std::vector<double> values;
    for (const auto& run : runs)
        if (run.variant == variant) values.push_back(run.*field);
    return values;
}

// ... or a field of one of its parts: its test metrics (&RunMeasurements::test) or decoded scores.
template <class Part>
std::vector<double> collect(const Runs& runs, const std::string& variant, Part RunMeasurements::*part, double Part::*field) {
    std::vector<double> values;
    for (const auto& run : runs)
        if (run.variant == variant) values.push_back((run.*part).*field);
    return values;
}

// a_s − b_s (or a_s / b_s) for each seed s: the variants' runs pair up by seed, since they train on
// the same data order and draw the same initial random stream.
inline std::vector<double> per_seed(const std::vector<double>& a, const std::vector<double>& b, double (*combine)(double, double)) {
    std::vector<double> values;
    for (std::size_t s = 0; s < a.size() && s < b.size(); ++s) values.push_back(combine(a[s], b[s]));
    return values;
}
inline double difference(double a, double b) { return a - b; }
inline double ratio(double a, double b) { return a / b; }

}  // namespace tf
