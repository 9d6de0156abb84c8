// Student's t intervals over seeds and the three-way verdict.
#include "analysis/seed_interval.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/report.h"

namespace tf {

double student_t_975(int64_t degrees_of_freedom) {
    // t_{0.975, ν} for ν = 1 … 30 (any statistics table; e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
    static constexpr std::array<double, 30> kTable = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (degrees_of_freedom < 1) return std::numeric_limits<double>::infinity();
    if (degrees_of_freedom <= 30) return kTable[static_cast<std::size_t>(degrees_of_freedom - 1)];
    return 1.96;
}

SeedInterval interval_95(const std::vector<double>& per_seed) {
    std::vector<double> values;
    for (double v : per_seed)
        if (std::isfinite(v)) values.push_back(v);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto n = static_cast<int64_t>(values.size());
    if (n == 0) return {nan, nan, nan, 0};
    const double mean = mean_of(values);
    if (n == 1) return {mean, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), 1};
    // x̄ ± t · s/√n
    const double half_width = student_t_975(n - 1) * std_of(values) / std::sqrt(static_cast<double>(n));
    return {mean, mean - half_width, mean + half_width, n};
}

SeedInterval ratio_interval_95(const std::vector<double>& per_seed_ratios) {
    std::vector<double> logs;
    for (double r : per_seed_ratios)
        if (std::isfinite(r) && r > 0) logs.push_back(std::log(r));
    const SeedInterval on_log = interval_95(logs);
    return {std::exp(on_log.mean), std::exp(on_log.low), std::exp(on_log.high), on_log.seeds};
}

Verdict judge(const SeedInterval& interval, double low, double high) {
    if (interval.seeds == 0) return Verdict::undecided;
    if (interval.low >= low && interval.high <= high) return Verdict::held;
    if (interval.high < low || interval.low > high) return Verdict::not_held;
    return Verdict::undecided;
}

const char* verdict_key(Verdict verdict) {
    switch (verdict) {
    case Verdict::held: return "held";
    case Verdict::not_held: return "not_held";
    case Verdict::undecided: return "undecided";
    }
    return "";
}

std::string verdict_text(Verdict verdict, const SeedInterval& interval, double low, double high) {
    char boundary[64];
    switch (verdict) {
    case Verdict::held: return "held";
    case Verdict::not_held:
        return interval.high < low ? "not held (below the predicted range)" : "not held (above the predicted range)";
    case Verdict::undecided:
        if (interval.seeds == 0) return "undecided (not measurable)";
        if (interval.seeds == 1) return "undecided (one seed: no interval; run more seeds)";
        std::snprintf(boundary, sizeof boundary, "%.3g", interval.low < low && interval.high >= low ? low : high);
        return std::string("undecided (the interval straddles ") + boundary + ")";
    }
    return "";
}

std::string interval_text(const SeedInterval& interval, const char* format) {
    const auto number = [&](double v) {
        char text[64];
        std::snprintf(text, sizeof text, format, v);
        return std::string(text);
    };
    if (interval.seeds == 0) return "not measurable";
    if (interval.seeds == 1) return number(interval.mean) + " (one seed: no interval)";
    return number(interval.mean) + " [" + number(interval.low) + ", " + number(interval.high) + "] (95 %, " +
           std::to_string(interval.seeds) + " seeds)";
}

}  // namespace tf
