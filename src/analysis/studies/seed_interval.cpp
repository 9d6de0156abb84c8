// Student's t intervals over seeds, on the scale of each quantity's domain, and the three-way verdict.
#include "analysis/studies/seed_interval.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "analysis/reports/report.h"

namespace tf {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool has_lower(const Domain& domain) { return std::isfinite(domain.lower); }
bool has_upper(const Domain& domain) { return std::isfinite(domain.upper); }

// How far x lies from the domain's nearer end, in the units g takes the logarithm of: x − lower,
// upper − x, or for two ends the share of the width; ∞ when the domain has no end.
double end_distance(const Domain& domain, double x) {
    if (has_lower(domain) && has_upper(domain)) return std::min(x - domain.lower, domain.upper - x) / (domain.upper - domain.lower);
    if (has_lower(domain)) return x - domain.lower;
    if (has_upper(domain)) return domain.upper - x;
    return kInfinity;
}

// g(x) of seed_interval.h, with a value on an end (where g is infinite) taken `end_step` in from it.
double to_scale(const Domain& domain, double x, double end_step) {
    const double distance = std::max(end_distance(domain, x), end_step);
    if (has_lower(domain) && has_upper(domain)) {
        // logit(u) = log(u / (1 − u)), u the share of the width below x
        const double u = x - domain.lower < domain.upper - x ? distance : 1 - distance;
        return std::log(u / (1 - u));
    }
    if (has_lower(domain)) return std::log(distance);
    if (has_upper(domain)) return -std::log(distance);
    return x;
}

// g⁻¹(z).
double from_scale(const Domain& domain, double z) {
    if (has_lower(domain) && has_upper(domain)) return domain.lower + (domain.upper - domain.lower) / (1 + std::exp(-z));
    if (has_lower(domain)) return domain.lower + std::exp(z);
    if (has_upper(domain)) return domain.upper - std::exp(-z);
    return z;
}

}  // namespace

Domain difference_domain(const Domain& domain) { return {domain.lower - domain.upper, domain.upper - domain.lower}; }

double student_t_975(int64_t degrees_of_freedom) {
    // t_{0.975, ν} for ν = 1 … 30 (any statistics table; e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2).
    static constexpr std::array<double, 30> kTable = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (degrees_of_freedom < 1) return kInfinity;
    if (degrees_of_freedom <= 30) return kTable[static_cast<std::size_t>(degrees_of_freedom - 1)];
    return 1.96;
}

SeedInterval interval_95(const std::vector<double>& per_seed, const Domain& domain) {
    std::vector<double> values;
    for (double v : per_seed)
        if (std::isfinite(v) && v >= domain.lower && v <= domain.upper) values.push_back(v);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto n = static_cast<int64_t>(values.size());
    if (n == 0) return {nan, nan, nan, 0};
    const double mean = mean_of(values);
    if (n == 1) return {mean, -kInfinity, kInfinity, 1};
    if (std_of(values) <= 1e-9 * std::abs(mean)) return {mean, mean, mean, n};   // equal but for float noise
    // A value on an end of the domain is taken half as far in as the nearest value off the ends (1 %
    // of the width when every value sits on an end): g is infinite there.
    double nearest = kInfinity;
    for (double v : values)
        if (const double d = end_distance(domain, v); d > 0) nearest = std::min(nearest, d);
    const double end_step = std::isfinite(nearest) ? nearest / 2 : 0.01;
    std::vector<double> on_scale;
    for (double v : values) on_scale.push_back(to_scale(domain, v, end_step));
    // g⁻¹( z̄ ± t · s_z/√n )
    const double center = mean_of(on_scale);
    const double half_width = student_t_975(n - 1) * std_of(on_scale) / std::sqrt(static_cast<double>(n));
    return {from_scale(domain, center), from_scale(domain, center - half_width), from_scale(domain, center + half_width), n};
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
    const auto number = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3g", v);
        return std::string(text);
    };
    switch (verdict) {
    case Verdict::held: return "held";
    case Verdict::not_held:
        return interval.high < low ? "not held (below the predicted range)" : "not held (above the predicted range)";
    case Verdict::undecided: {
        if (interval.seeds == 0) return "undecided (not measurable)";
        if (interval.seeds == 1) return "undecided (one seed: no interval; run more seeds)";
        const std::string straddles = "undecided (the interval [" + number(interval.low) + ", " + number(interval.high) + "] straddles ";
        if (interval.low < low && interval.high > high) return straddles + "both " + number(low) + " and " + number(high) + ")";
        return straddles + number(interval.low < low ? low : high) + ")";
    }
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
    if (interval.low == interval.high)
        return number(interval.mean) + (interval.seeds == 2 ? " (both seeds equal)" : " (all " + std::to_string(interval.seeds) + " seeds equal)");
    return number(interval.mean) + " [" + number(interval.low) + ", " + number(interval.high) + "] (95 %, " +
           std::to_string(interval.seeds) + " seeds)";
}

}  // namespace tf
