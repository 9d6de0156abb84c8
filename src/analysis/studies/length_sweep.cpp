// Least squares of log error on input length.
#include "analysis/studies/length_sweep.h"

#include <cmath>
#include <limits>

#include "autograd/error.h"

namespace tf {

ErrorGrowthFit fit_error_growth(const std::vector<double>& lengths, const std::vector<double>& accuracies,
                                const std::vector<int64_t>& target_tokens) {
    if (lengths.size() != accuracies.size() || lengths.size() != target_tokens.size())
        throw ValueError("fit_error_growth: " + std::to_string(lengths.size()) + " lengths against " +
                         std::to_string(accuracies.size()) + " accuracies and " + std::to_string(target_tokens.size()) +
                         " token counts");
    std::vector<double> xs, ys;   // n, log error(n)
    int64_t zero_error_points = 0;
    for (std::size_t k = 0; k < lengths.size(); ++k) {
        double error = 1 - accuracies[k];
        if (!std::isfinite(lengths[k]) || !std::isfinite(error)) continue;
        if (error <= 0) {
            if (target_tokens[k] <= 0)
                throw ValueError("fit_error_growth: a point with no error needs its test target tokens, got " +
                                 std::to_string(target_tokens[k]));
            // the continuity correction: half a wrong token of the T scored
            error = 0.5 / static_cast<double>(target_tokens[k]);
            ++zero_error_points;
        }
        xs.push_back(lengths[k]), ys.push_back(std::log(error));
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto points = static_cast<int64_t>(xs.size());
    const ErrorGrowthFit unmeasurable{nan, nan, nan, nan, points, zero_error_points};
    if (xs.size() < 2) return unmeasurable;
    const auto n = static_cast<double>(xs.size());
    double mean_x = 0, mean_y = 0;
    for (std::size_t k = 0; k < xs.size(); ++k) mean_x += xs[k] / n, mean_y += ys[k] / n;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t k = 0; k < xs.size(); ++k) {
        sxx += (xs[k] - mean_x) * (xs[k] - mean_x);
        sxy += (xs[k] - mean_x) * (ys[k] - mean_y);
        syy += (ys[k] - mean_y) * (ys[k] - mean_y);
    }
    if (sxx == 0) return unmeasurable;   // every point at one length
    // log error = log e₀ + n/τ:  slope = Sxy/Sxx = 1/τ,  intercept = ȳ − slope·x̄
    const double slope = sxy / sxx;
    const double intercept = mean_y - slope * mean_x;
    // R² = 1 − residual / total = Sxy² / (Sxx·Syy)
    const double r_squared = xs.size() > 2 && syy > 0 ? sxy * sxy / (sxx * syy) : nan;
    return {slope, slope > 0 ? 1 / slope : std::numeric_limits<double>::infinity(), std::exp(intercept), r_squared,
            points, zero_error_points};
}

}  // namespace tf
