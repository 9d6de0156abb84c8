// The decay constant of the length sweep: an exact exponential gives back its τ, no growth is
// τ = ∞, and points without error are left out of the logarithm.
#include "catch.h"

#include <cmath>

#include "analysis/length_sweep.h"
#include "autograd/error.h"

using namespace tf;

TEST_CASE("error(n) = 0.01·exp(n/8) gives back τ = 8 and e₀ = 0.01 with R² = 1", "[unit][length_sweep]") {
    std::vector<double> lengths = {4, 12, 20, 28}, accuracies;
    for (double n : lengths) accuracies.push_back(1 - 0.01 * std::exp(n / 8));
    const ErrorGrowthFit fit = fit_error_growth(lengths, accuracies);
    CHECK(fit.tau == Approx(8));
    CHECK(fit.error_at_zero == Approx(0.01));
    CHECK(fit.r_squared == Approx(1));
    CHECK(fit.points == 4);
}

TEST_CASE("an error that does not grow with length has τ = ∞", "[unit][length_sweep]") {
    CHECK(std::isinf(fit_error_growth({5, 10, 20}, {0.9, 0.9, 0.9}).tau));
    CHECK(std::isinf(fit_error_growth({5, 10, 20}, {0.5, 0.7, 0.9}).tau));   // it shrinks
}

TEST_CASE("perfect points are left out, and two points fit exactly and have no R²", "[unit][length_sweep]") {
    const ErrorGrowthFit fit = fit_error_growth({4, 8, 16}, {1.0, 1 - 0.1, 1 - 0.1 * std::exp(8.0 / 4)});
    CHECK(fit.points == 2);
    CHECK(fit.tau == Approx(4));
    CHECK(std::isnan(fit.r_squared));
    CHECK(std::isnan(fit_error_growth({4, 8}, {1.0, 0.5}).tau));   // one usable point
    CHECK_THROWS_AS(fit_error_growth({4, 8}, {0.5}), ValueError);
}
