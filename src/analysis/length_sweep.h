// The length sweep: test accuracy against input length, and the decay constant τ of a model whose
// errors grow with length (docs/experiments.md, "Length sweep").
//
// A recurrence carries the whole input through one state vector; what it must remember fades with
// each step it is carried (Bengio et al. 1994). The exponential form of that claim, for the error
// of a recurrent decoder at input length n, is
//     error(n) = e₀ · exp(n / τ),   error = 1 − test token accuracy,
// so log error is a line in n with slope 1/τ. The fit is least squares of log error(n) on n over
// the sweep's points (a point with no error has no logarithm and is left out); τ is the number
// of extra input positions that multiply the error by e. No growth (slope ≤ 0) is τ = ∞.
#pragma once
#include <cstdint>
#include <vector>

namespace tf {

struct ErrorGrowthFit {
    double tau = 0;           // positions; +∞ when the error does not grow
    double error_at_zero = 0; // e₀
    double r_squared = 0;     // of the line fitted to log error (NaN with two points: a line fits them exactly)
    int64_t points = 0;       // the points with an error > 0 that the fit used
};

// Fits error(n) = e₀·exp(n/τ) to (lengths[k], 1 − accuracies[k]). Fewer than two usable points:
// τ and the rest are NaN.
ErrorGrowthFit fit_error_growth(const std::vector<double>& lengths, const std::vector<double>& accuracies);

}  // namespace tf
