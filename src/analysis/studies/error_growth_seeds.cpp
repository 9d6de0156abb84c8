// Intervals over seeds of the growth rate 1/τ and of e₀ (analysis/studies/error_growth_seeds.h).
#include "analysis/studies/error_growth_seeds.h"

#include <cmath>
#include <limits>

#include "analysis/reports/report.h"

namespace tf {

double tau_of_growth_rate(double growth_rate) {
    if (std::isnan(growth_rate)) return growth_rate;
    return growth_rate > 0 ? 1 / growth_rate : std::numeric_limits<double>::infinity();
}

ErrorGrowthOverSeeds error_growth_over_seeds(std::vector<ErrorGrowthFit> per_seed) {
    ErrorGrowthOverSeeds result;
    std::vector<double> rates, errors_at_zero, r_squareds;
    for (const ErrorGrowthFit& fit : per_seed) {
        result.points += fit.points, result.zero_error_points += fit.zero_error_points;
        if (std::isnan(fit.growth_rate)) continue;   // too few points in this seed
        rates.push_back(fit.growth_rate), errors_at_zero.push_back(fit.error_at_zero);
        if (fit.growth_rate <= 0) ++result.seeds_without_growth;
        if (!std::isnan(fit.r_squared)) r_squareds.push_back(fit.r_squared);
    }
    result.per_seed = std::move(per_seed);
    result.growth_rate = interval_95(rates, kUnbounded);
    result.error_at_zero = interval_95(errors_at_zero, kNonNegative);
    // τ falls as r rises: the interval's ends swap
    result.tau = tau_of_growth_rate(result.growth_rate.mean);
    result.tau_low = tau_of_growth_rate(result.growth_rate.high);
    result.tau_high = tau_of_growth_rate(result.growth_rate.low);
    result.r_squared = mean_of(r_squareds);
    return result;
}

}  // namespace tf
