// Head statistics and the q·k scale check on constructed inputs.
#include "catch.h"
#include <cmath>

#include "analysis/studies/attention_stats.h"

using namespace tf;

TEST_CASE("head entropy and distance: uniform rows give ln S, one-hot rows give 0 and |i − j|", "[unit]") {
    // Head 0 uniform over 4 keys; head 1 attends from query i to key 3 − i.
    Tensor weights = Tensor::zeros({1, 2, 4, 4}, DType::f64);
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) weights.set({0, 0, i, j}, 0.25), weights.set({0, 1, i, j}, j == 3 - i ? 1.0 : 0.0);
    const auto stats = head_stats(weights);
    CHECK(stats[0].entropy == Approx(std::log(4.0)));
    CHECK(stats[0].uniform_entropy == Approx(std::log(4.0)));
    CHECK(stats[0].mean_distance == Approx((1.5 + 1.0 + 1.0 + 1.5) / 4));  // mean |i − j| over j, then over i
    CHECK(stats[1].entropy == 0.0);
    CHECK(stats[1].mean_distance == Approx((3 + 1 + 1 + 3) / 4.0));
}

TEST_CASE("a causal head spread evenly over what it sees is as uniform as it can be: ln(T!)/T", "[unit]") {
    const int64_t T = 5;
    Tensor weights = Tensor::zeros({1, 1, T, T}, DType::f64);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j <= i; ++j) weights.set({0, 0, i, j}, 1.0 / double(i + 1));
    const HeadStats stats = head_stats(weights)[0];
    const double log_factorial_over_T = std::lgamma(double(T) + 1) / double(T);  // (1/T)·Σ_i ln(i + 1)
    CHECK(stats.entropy == Approx(log_factorial_over_T));
    CHECK(stats.uniform_entropy == Approx(log_factorial_over_T));
    CHECK(stats.uniform_entropy < std::log(double(T)));   // ln T would make this head look sharp
}

TEST_CASE("q·k variance is d_k for unit-variance components, 1 after scaling", "[unit]") {
    Rng rng(4);
    const Tensor q = Tensor::normal({2, 2, 64, 16}, 0, 1, rng, DType::f64);
    const Tensor k = Tensor::normal({2, 1, 64, 16}, 0, 1, rng, DType::f64);
    const DotProductScale scale = dot_product_scale(q, k);
    CHECK(scale.d_k == 16);
    CHECK(scale.component_variance_q == Approx(1.0).margin(0.1));
    CHECK(scale.variance_raw == Approx(16.0).epsilon(0.1));
    CHECK(scale.variance_scaled == Approx(1.0).epsilon(0.1));
}
