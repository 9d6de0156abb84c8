// The length sweep: test accuracy against input length, and the decay constant τ of a model whose
// errors grow with length (docs/experiments.md, "Length sweep").
//
// A recurrence carries the whole input through one state vector; what it must remember fades with
// each step it is carried (Bengio et al. 1994). The exponential form of that claim, for the error
// of a decoder at input length n, is
//     error(n) = e₀ · exp(n / τ),   error = 1 − test token accuracy,
// so log error is a line in n with slope 1/τ, the growth rate. The fit is least squares of
// log error(n) on n over one seed's points; τ is the number of extra input positions that multiply
// the error by e. No growth (slope ≤ 0) is τ = ∞.
//
// A point with no error has no logarithm, yet it is the best result the sweep can show, so it is
// kept with a continuity correction: its error is taken as
//     error = 0.5 / T,   T the test target tokens it was scored on,
// the error that half a wrong token would be — below any error the split can measure (1 / T).
#pragma once
#include <cstdint>
#include <vector>

namespace tf {

struct ErrorGrowthFit {
    double growth_rate = 0;   // slope of log error on n: 1/τ per position; ≤ 0 when the error does not grow
    double tau = 0;           // positions; +∞ when the error does not grow
    double error_at_zero = 0; // e₀
    double r_squared = 0;     // of the line fitted to log error (NaN with two points: a line fits them exactly)
    int64_t points = 0;       // the points the fit used
    int64_t zero_error_points = 0;   // of those, the ones with no error, taken as 0.5 / T
};

// Fits error(n) = e₀·exp(n/τ) to (lengths[k], 1 − accuracies[k]), a point with error 0 taken as
// 0.5 / target_tokens[k]; points with a non-finite length or accuracy are left out. Fewer than two
// points, or all at one length: every number but the counts is NaN.
ErrorGrowthFit fit_error_growth(const std::vector<double>& lengths, const std::vector<double>& accuracies,
                                const std::vector<int64_t>& target_tokens);

}  // namespace tf
