// The decay constant of the length sweep: an exact exponential gives back its τ, no growth is
// τ = ∞, and a point without error is kept as half a wrong token.
#include "catch.h"

#include <cmath>

#include "analysis/studies/length_sweep.h"
#include "autograd/error.h"

using namespace tf;

TEST_CASE("error(n) = 0.01·exp(n/8) gives back τ = 8 and e₀ = 0.01 with R² = 1", "[unit][length_sweep]") {
    std::vector<double> lengths = {4, 12, 20, 28}, accuracies;
    for (double n : lengths) accuracies.push_back(1 - 0.01 * std::exp(n / 8));
    const ErrorGrowthFit fit = fit_error_growth(lengths, accuracies, {500, 500, 500, 500});
    CHECK(fit.tau == Approx(8));
    CHECK(fit.growth_rate == Approx(1.0 / 8));
    CHECK(fit.error_at_zero == Approx(0.01));
    CHECK(fit.r_squared == Approx(1));
    CHECK(fit.points == 4);
    CHECK(fit.zero_error_points == 0);
}

TEST_CASE("an error that does not grow with length has τ = ∞", "[unit][length_sweep]") {
    const ErrorGrowthFit flat = fit_error_growth({5, 10, 20}, {0.9, 0.9, 0.9}, {100, 100, 100});
    CHECK(std::isinf(flat.tau));
    CHECK(flat.growth_rate == Approx(0).margin(1e-12));
    const ErrorGrowthFit shrinking = fit_error_growth({5, 10, 20}, {0.5, 0.7, 0.9}, {100, 100, 100});
    CHECK(std::isinf(shrinking.tau));
    CHECK(shrinking.growth_rate < 0);   // the slope is kept: an interval over seeds needs it
}

TEST_CASE("a perfect point is kept as half a wrong token of its test targets", "[unit][length_sweep]") {
    // 200 target tokens, none wrong: error = 0.5 / 200 = 0.0025 at n = 4. The other two points lie on
    // 0.0025·exp((n − 4)/4), so the corrected point completes an exact exponential with τ = 4 and
    // e₀ = 0.0025 / e.
    const double e = std::exp(1.0);
    const ErrorGrowthFit fit = fit_error_growth({4, 8, 16}, {1.0, 1 - 0.0025 * e, 1 - 0.0025 * e * e * e}, {200, 300, 400});
    CHECK(fit.points == 3);
    CHECK(fit.zero_error_points == 1);
    CHECK(fit.tau == Approx(4));
    CHECK(fit.error_at_zero == Approx(0.0025 / e));
    CHECK(fit.r_squared == Approx(1));
}

TEST_CASE("two points fit exactly and have no R², and fewer cannot be fitted", "[unit][length_sweep]") {
    const ErrorGrowthFit two = fit_error_growth({4, 8}, {0.9, 1 - 0.1 * std::exp(1.0)}, {100, 100});
    CHECK(two.tau == Approx(4));
    CHECK(std::isnan(two.r_squared));
    const ErrorGrowthFit one = fit_error_growth({4, 8}, {0.5, NAN}, {100, 0});
    CHECK(one.points == 1);
    CHECK(std::isnan(one.tau));
    CHECK(std::isnan(one.growth_rate));
    CHECK_THROWS_AS(fit_error_growth({4, 8}, {0.5}, {100, 100}), ValueError);
    // a perfect point whose token count is unknown cannot be corrected
    CHECK_THROWS_WITH(fit_error_growth({4, 8}, {1.0, 0.5}, {0, 100}),
                      "fit_error_growth: a point with no error needs its test target tokens, got 0");
}
