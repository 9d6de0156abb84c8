// What differs between two variants' error growth (analysis/studies/error_growth_contrast.h).
#include "analysis/studies/error_growth_contrast.h"

#include <algorithm>
#include <cmath>

#include "analysis/reports/report.h"

namespace tf {

namespace {

std::string number(double value) {
    if (std::isinf(value)) return "∞";
    return format_number(value, 2);
}

// The growth-rate interval with r ≤ 0 taken as 0: the τ interval seen from its reciprocal.
struct Rates {
    double low, high;
};
Rates growth_rates(const ErrorGrowthOverSeeds& growth) {
    return {std::max(growth.growth_rate.low, 0.0), std::max(growth.growth_rate.high, 0.0)};
}

// "×2.5", "×16", "×154": two digits, whole from 10 on (no exponent in a sentence).
std::string times(double factor) {
    return "×" + (factor >= 10 ? std::to_string(std::llround(factor)) : format_number(factor, 2));
}

// How many times the larger e₀ is the smaller (≥ 1).
double e0_factor(const ErrorGrowthOverSeeds& a, const ErrorGrowthOverSeeds& b) {
    const double e0_a = a.error_at_zero.mean, e0_b = b.error_at_zero.mean;
    return std::max(e0_a, e0_b) / std::min(e0_a, e0_b);
}

}  // namespace

std::string tau_interval_text(const ErrorGrowthOverSeeds& growth) {
    if (growth.growth_rate.seeds == 0) return "not measurable";
    if (growth.growth_rate.seeds == 1) return number(growth.tau) + " (one seed: no interval)";
    if (std::isinf(growth.tau_low)) return "∞ (no growth)";
    if (growth.tau_low == growth.tau_high) return number(growth.tau) + " (seeds equal)";
    return number(growth.tau) + " [" + number(growth.tau_low) + ", " + number(growth.tau_high) + "]";
}

std::string error_at_zero_interval_text(const ErrorGrowthOverSeeds& growth) {
    const SeedInterval& e0 = growth.error_at_zero;
    if (e0.seeds == 0) return "not measurable";
    if (e0.seeds == 1) return number(e0.mean) + " (one seed: no interval)";
    if (e0.low == e0.high) return number(e0.mean) + " (seeds equal)";
    return number(e0.mean) + " [" + number(e0.low) + ", " + number(e0.high) + "]";
}

std::string error_growth_contrast(const std::string& first_name, const ErrorGrowthOverSeeds& first,
                                  const std::string& second_name, const ErrorGrowthOverSeeds& second) {
    const std::string pair = first_name + " and " + second_name;
    if (first.growth_rate.seeds < 2 || second.growth_rate.seeds < 2)
        return pair + ": too few seeds to tell; an interval needs two or more seeds with a fit (" + first_name +
               " has " + std::to_string(first.growth_rate.seeds) + ", " + second_name + " has " +
               std::to_string(second.growth_rate.seeds) + ").";
    const Rates a = growth_rates(first), b = growth_rates(second);
    if (a.low > b.high || b.low > a.high) {
        const bool first_faster = a.low > b.high;
        const std::string& faster = first_faster ? first_name : second_name;
        const std::string& slower = first_faster ? second_name : first_name;
        const ErrorGrowthOverSeeds& fast = first_faster ? first : second;
        const ErrorGrowthOverSeeds& slow = first_faster ? second : first;
        std::string text = pair + ": the error of " + faster + " grows faster with length than that of " + slower +
                           ": τ = " + tau_interval_text(fast) + " against " + tau_interval_text(slow) +
                           " positions (95 % intervals over seeds, which do not overlap)";
        // τ is a relative rate: say where each error starts when the starts differ
        if (e0_factor(fast, slow) >= 2)
            text += ", from an error at zero length e₀ of " + number(fast.error_at_zero.mean) + " against " +
                    number(slow.error_at_zero.mean) + " (" + times(e0_factor(fast, slow)) + ")";
        return text + ".";
    }
    const std::string same_rate = pair + ": errors grow with length at the same rate, as far as " +
                                  std::to_string(first.growth_rate.seeds) + " and " +
                                  std::to_string(second.growth_rate.seeds) + " seeds tell (τ ≈ " + number(first.tau) +
                                  " and " + number(second.tau) + " positions, intervals overlap)";
    const double e0_first = first.error_at_zero.mean, e0_second = second.error_at_zero.mean;
    const double factor = e0_factor(first, second);
    if (factor >= 2) {
        const bool e0_intervals_overlap =
            first.error_at_zero.low <= second.error_at_zero.high && second.error_at_zero.low <= first.error_at_zero.high;
        return same_rate + "; what differs is the error at zero length e₀: " + number(e0_first) + " for " + first_name +
               " against " + number(e0_second) + " for " + second_name + " (" + times(factor) +
               (e0_intervals_overlap ? ", though their e₀ intervals overlap" : "") + ").";
    }
    return same_rate + ", and their errors at zero length are within a factor 2 (e₀ " + number(e0_first) + " against " +
           number(e0_second) + "): the sweep does not tell them apart.";
}

}  // namespace tf
