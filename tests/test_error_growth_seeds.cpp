// τ and e₀ over seeds: the interval is taken on the growth rate 1/τ and mapped, so it stays above 0,
// and a seed without growth widens it to ∞ instead of being dropped.
#include "catch.h"

#include <cmath>

#include "analysis/studies/error_growth_seeds.h"

using namespace tf;

namespace {

// A seed's fit with growth rate r (τ = 1/r) and error at zero e₀, four points, none perfect.
ErrorGrowthFit seed_fit(double rate, double e0, double r_squared = 0.9) {
    return {rate, tau_of_growth_rate(rate), e0, r_squared, 4, 0};
}

}  // namespace

TEST_CASE("τ's interval over seeds is the t-interval of 1/τ, mapped, and e₀'s is on the log scale", "[unit][length_sweep]") {
    // rates 0.20, 0.25, 0.30: mean 0.25, s = 0.05, t_{0.975,2} = 4.303, half width 4.303·0.05/√3 = 0.12421
    const ErrorGrowthOverSeeds growth =
        error_growth_over_seeds({seed_fit(0.20, 0.01, 0.8), seed_fit(0.25, 0.02, 0.9), seed_fit(0.30, 0.04, 1.0)});
    CHECK(growth.growth_rate.seeds == 3);
    CHECK(growth.tau == Approx(4));
    CHECK(growth.tau_low == Approx(1 / (0.25 + 0.12421)).epsilon(1e-4));
    CHECK(growth.tau_high == Approx(1 / (0.25 - 0.12421)).epsilon(1e-4));
    CHECK(growth.tau_low > 0);
    CHECK(growth.tau_low < growth.tau);
    CHECK(growth.tau < growth.tau_high);
    // e₀ 0.01, 0.02, 0.04: geometric mean 0.02; log scale, so the low end stays above 0
    CHECK(growth.error_at_zero.mean == Approx(0.02));
    CHECK(growth.error_at_zero.low > 0);
    CHECK(growth.error_at_zero.low < 0.01);
    CHECK(growth.r_squared == Approx(0.9));
    CHECK(growth.points == 12);
    CHECK(growth.seeds_without_growth == 0);
}

TEST_CASE("a seed whose error does not grow counts, and τ's interval reaches ∞", "[unit][length_sweep]") {
    // rates 0.10, 0.05, −0.02: mean 0.04333, s = 0.06028, half width 4.303·0.06028/√3 = 0.14976
    const ErrorGrowthOverSeeds growth = error_growth_over_seeds({seed_fit(0.10, 0.01), seed_fit(0.05, 0.01), seed_fit(-0.02, 0.01)});
    CHECK(growth.seeds_without_growth == 1);
    CHECK(growth.growth_rate.seeds == 3);   // kept, not dropped
    CHECK(growth.tau == Approx(1 / 0.043333).epsilon(1e-4));
    CHECK(growth.tau_low == Approx(1 / (0.043333 + 0.14976)).epsilon(1e-3));
    CHECK(std::isinf(growth.tau_high));
}

TEST_CASE("seeds too short to fit are left out of the intervals, their points still counted", "[unit][length_sweep]") {
    const double nan = std::nan("");
    const ErrorGrowthOverSeeds growth =
        error_growth_over_seeds({seed_fit(0.2, 0.01), ErrorGrowthFit{nan, nan, nan, nan, 1, 1}});
    CHECK(growth.growth_rate.seeds == 1);
    CHECK(growth.points == 5);
    CHECK(growth.zero_error_points == 1);
    CHECK(growth.tau == Approx(5));
    CHECK(std::isnan(error_growth_over_seeds({}).tau));
}
