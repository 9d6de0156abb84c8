// The sentence that says what differs between two variants' error growth: one case per branch, on
// constructed seeds.
#include "catch.h"

#include <string>
#include <vector>

#include "analysis/studies/error_growth_contrast.h"

using namespace tf;

namespace {

// Seeds with the given growth rates (1/τ) and errors at zero length, one fit each.
ErrorGrowthOverSeeds seeds(const std::vector<double>& rates, const std::vector<double>& errors_at_zero) {
    std::vector<ErrorGrowthFit> fits;
    for (std::size_t s = 0; s < rates.size(); ++s)
        fits.push_back({rates[s], tau_of_growth_rate(rates[s]), errors_at_zero[s], 0.9, 4, 0});
    return error_growth_over_seeds(fits);
}

bool says(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("overlapping τ and e₀ 16 times apart: same rate, e₀ differs", "[unit][length_sweep]") {
    const ErrorGrowthOverSeeds gru = seeds({0.20, 0.21, 0.22}, {0.030, 0.032, 0.034});
    const ErrorGrowthOverSeeds attention = seeds({0.21, 0.22, 0.23}, {0.0019, 0.0020, 0.0021});
    const std::string text = error_growth_contrast("gru", gru, "attention", attention);
    INFO(text);
    CHECK(says(text, "errors grow with length at the same rate, as far as 3 and 3 seeds tell (τ ≈ 4.8 and 4.5 positions"));
    CHECK(says(text, "what differs is the error at zero length e₀: 0.032 for gru against 0.002 for attention (×16)."));
}

TEST_CASE("overlapping τ and e₀ 2 times apart with overlapping e₀ intervals says so", "[unit][length_sweep]") {
    const std::string text = error_growth_contrast("a", seeds({0.2, 0.3}, {0.01, 0.04}), "b", seeds({0.2, 0.3}, {0.005, 0.02}));
    INFO(text);
    CHECK(says(text, "(×2, though their e₀ intervals overlap)."));
}

TEST_CASE("overlapping τ and e₀ within a factor 2: the sweep does not tell them apart", "[unit][length_sweep]") {
    const std::string text = error_growth_contrast("a", seeds({0.20, 0.25, 0.30}, {0.010, 0.012, 0.014}), "b",
                                                   seeds({0.22, 0.26, 0.28}, {0.015, 0.016, 0.017}));
    INFO(text);
    CHECK(says(text, "within a factor 2"));
    CHECK(says(text, "the sweep does not tell them apart."));
}

TEST_CASE("τ intervals apart: the sentence names the faster-growing variant, in either order", "[unit][length_sweep]") {
    const ErrorGrowthOverSeeds fast = seeds({0.50, 0.52, 0.48}, {0.01, 0.01, 0.01});   // τ ≈ 2
    const ErrorGrowthOverSeeds slow = seeds({0.10, 0.11, 0.09}, {0.01, 0.01, 0.01});   // τ ≈ 10
    const std::string text = error_growth_contrast("fast", fast, "slow", slow);
    INFO(text);
    CHECK(says(text, "the error of fast grows faster with length than that of slow: τ = 2 ["));
    CHECK(says(text, "against 10 ["));
    CHECK(says(error_growth_contrast("slow", slow, "fast", fast), "the error of fast grows faster"));
    CHECK(!says(text, "e₀"));   // equal starts are not mentioned
}

TEST_CASE("τ intervals apart and e₀ far apart: the sentence says where each error starts", "[unit][length_sweep]") {
    const ErrorGrowthOverSeeds attention = seeds({0.39, 0.40, 0.41}, {0.0002, 0.0002, 0.0002});   // τ = 2.5
    const ErrorGrowthOverSeeds gru = seeds({0.19, 0.20, 0.21}, {0.04, 0.04, 0.04});                // τ = 5
    const std::string text = error_growth_contrast("gru", gru, "attention", attention);
    INFO(text);
    CHECK(says(text, "the error of attention grows faster with length than that of gru: τ = 2.5 ["));
    CHECK(says(text, "), from an error at zero length e₀ of 0.0002 against 0.04 (×200)."));
}

TEST_CASE("two variants without growth have overlapping τ = ∞, however their slopes differ", "[unit][length_sweep]") {
    const std::string text = error_growth_contrast("a", seeds({-0.50, -0.52, -0.48}, {0.01, 0.01, 0.01}), "b",
                                                   seeds({-0.10, -0.11, -0.09}, {0.01, 0.01, 0.01}));
    INFO(text);
    CHECK(says(text, "at the same rate"));
    CHECK(says(text, "τ ≈ ∞ and ∞"));
}

TEST_CASE("one seed in a variant: too few seeds to tell", "[unit][length_sweep]") {
    const std::string text = error_growth_contrast("a", seeds({0.2}, {0.01}), "b", seeds({0.5, 0.6, 0.55}, {0.1, 0.1, 0.1}));
    INFO(text);
    CHECK(says(text, "a and b: too few seeds to tell; an interval needs two or more seeds with a fit (a has 1, b has 3)."));
}

TEST_CASE("τ and e₀ interval texts: interval, no growth, one seed, none", "[unit][length_sweep]") {
    const ErrorGrowthOverSeeds three = seeds({0.20, 0.25, 0.30}, {0.01, 0.02, 0.04});
    CHECK(tau_interval_text(three) == "4 [2.7, 8]");   // 1/0.2484 and 1/0.1258
    CHECK(error_at_zero_interval_text(three).rfind("0.02 [", 0) == 0);
    CHECK(tau_interval_text(seeds({-0.1, -0.2, -0.15}, {0.1, 0.1, 0.1})) == "∞ (no growth)");
    CHECK(tau_interval_text(seeds({0.2}, {0.01})) == "5 (one seed: no interval)");
    CHECK(tau_interval_text(seeds({}, {})) == "not measurable");
}
