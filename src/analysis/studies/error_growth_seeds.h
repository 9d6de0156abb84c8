// A variant's error growth over seeds: each seed's fit error(n) = e₀·exp(n/τ) over its own points
// (analysis/studies/length_sweep.h), then 95 % intervals over the seeds (analysis/studies/seed_interval.h).
//
// τ's interval is taken on the growth rate r = 1/τ, the fitted slope, on the scale with no ends,
// and not on τ's own log scale. A seed whose error does not grow has r ≤ 0 and τ = ∞: log τ is then
// no number, and leaving that seed out would move the interval toward growth it did not show. r is
// finite for every seed, and a least-squares slope is a weighted sum of the log errors, so it is
// near normal when they are. The t-interval [r_low, r_high] of r maps onto
//     τ ∈ [1/r_high, 1/r_low],   1/r = ∞ for r ≤ 0 (the seeds cannot rule out no growth),
// with centre τ = 1/r̄. e₀ = exp(intercept) is positive: its interval is the t-interval of log e₀
// (kNonNegative), centre the geometric mean. The curve exp(log e₀ centre + r̄·n) that these centres
// give is the geometric mean of the seeds' fitted error curves.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/studies/length_sweep.h"
#include "analysis/studies/seed_interval.h"

namespace tf {

struct ErrorGrowthOverSeeds {
    std::vector<ErrorGrowthFit> per_seed;
    SeedInterval growth_rate;     // r = 1/τ per position, over the seeds with a measurable fit
    SeedInterval error_at_zero;   // e₀
    double tau = 0, tau_low = 0, tau_high = 0;   // 1/r̄, 1/r_high, 1/r_low (∞ where r ≤ 0; NaN: no fit)
    double r_squared = 0;         // mean over the seeds whose fit has an R² (NaN: none has)
    int64_t points = 0, zero_error_points = 0;   // summed over the seeds
    int64_t seeds_without_growth = 0;            // seeds with r ≤ 0: τ = ∞
};

// τ = 1/r: ∞ for r ≤ 0, NaN for NaN.
double tau_of_growth_rate(double growth_rate);

ErrorGrowthOverSeeds error_growth_over_seeds(std::vector<ErrorGrowthFit> per_seed);

}  // namespace tf
