// The scale-free gradient-stability measures: the noise-to-signal ratio worked by hand, unchanged
// by the gradient's scale, and measured through the tape on a least-squares model whose
// per-minibatch gradients are known in closed form; the coefficient of variation likewise.
#include "catch.h"

#include <cmath>

#include "analysis/studies/gradient_noise.h"
#include "autograd/error.h"
#include "autograd/ops.h"
#include "train/gradient_noise_window.h"

using namespace tf;

TEST_CASE("noise-to-signal worked by hand: gradients (1, 0) and (3, 0) stray 1 each from their mean (2, 0)", "[unit][gradient_noise]") {
    // ḡ = (2, 0), ‖ḡ‖² = 4;  (1/2)(‖(−1, 0)‖² + ‖(1, 0)‖²) = 1;  N = 1/4
    CHECK(gradient_noise_to_signal({{1, 0}, {3, 0}}) == Approx(0.25));
    // identical gradients have no noise; opposite ones have no mean direction
    CHECK(gradient_noise_to_signal({{1, 2}, {1, 2}, {1, 2}}) == 0);
    CHECK(std::isnan(gradient_noise_to_signal({{1, -1}, {-1, 1}})));
    CHECK_THROWS_AS(gradient_noise_to_signal({{1, 2}}), ValueError);
    CHECK_THROWS_AS(gradient_noise_to_signal({{1, 2}, {1}}), ValueError);
}

TEST_CASE("both measures are scale-free: multiplying every gradient by c changes neither", "[property][gradient_noise]") {
    const std::vector<std::vector<double>> gradients = {{0.3, -1.2, 2.0}, {0.9, -0.4, 1.1}, {-0.2, -1.0, 2.5}, {0.5, 0.1, 1.7}};
    const std::vector<double> norms = {2.1, 1.4, 3.3, 2.8, 1.9};
    for (const double c : {1e-3, 0.5, 40.0}) {
        auto scaled = gradients;
        for (auto& g : scaled)
            for (double& v : g) v *= c;
        std::vector<double> scaled_norms = norms;
        for (double& v : scaled_norms) v *= c;
        CHECK(gradient_noise_to_signal(scaled) == Approx(gradient_noise_to_signal(gradients)).epsilon(1e-12));
        CHECK(coefficient_of_variation(scaled_norms) == Approx(coefficient_of_variation(norms)).epsilon(1e-12));
    }
}

TEST_CASE("coefficient of variation worked by hand", "[unit][gradient_noise]") {
    CHECK(coefficient_of_variation({1, 2, 3}) == Approx(0.5));   // sd 1 (n − 1), mean 2
    CHECK(coefficient_of_variation({4, 4, 4}) == 0);
    CHECK(std::isnan(coefficient_of_variation({4})));
    CHECK(std::isnan(coefficient_of_variation({-1, 1})));
}

TEST_CASE("minibatch gradients through the tape equal least squares' closed form, and so does their noise", "[unit][gradient_noise]") {
    // L_b(w) = (1/n) Σ_{r ∈ b} (x_rᵀw − y_r)²  ⇒  g_b = (2/n) X_bᵀ(X_b w − y_b)
    const int64_t n = 3, features = 2;
    const std::vector<std::vector<double>> X = {{1, 0, 0, 1, 1, 1}, {2, 1, 0, 3, 1, -1}, {0, 2, 1, 1, -1, 0}};   // 3 minibatches, n × 2 each
    const std::vector<std::vector<double>> y = {{1, 2, 0}, {0, 1, 3}, {2, -1, 1}};
    const std::vector<double> w0 = {0.5, -0.25};
    Tensor w = Tensor::from_data(w0, {features, 1}, DType::f64);
    w.set_requires_grad();
    const auto gradients = minibatch_gradients({w}, 3, [&](int64_t b) {
        const Tensor Xb = Tensor::from_data(X[b], {n, features}, DType::f64);
        const Tensor yb = Tensor::from_data(y[b], {n, 1}, DType::f64);
        const Tensor residual = sub(matmul(Xb, w), yb);
        return mean(mul(residual, residual));
    });
    std::vector<std::vector<double>> closed_form(3, std::vector<double>(features, 0.0));
    for (std::size_t b = 0; b < 3; ++b)
        for (int64_t r = 0; r < n; ++r) {
            const double residual = X[b][2 * r] * w0[0] + X[b][2 * r + 1] * w0[1] - y[b][r];
            for (int64_t f = 0; f < features; ++f) closed_form[b][f] += 2.0 / n * X[b][2 * r + f] * residual;
        }
    REQUIRE(gradients.size() == 3);
    for (std::size_t b = 0; b < 3; ++b)
        for (int64_t f = 0; f < features; ++f) CHECK(gradients[b][f] == Approx(closed_form[b][f]).epsilon(1e-12));
    CHECK(gradient_noise_to_signal(gradients) == Approx(gradient_noise_to_signal(closed_form)).epsilon(1e-12));
    CHECK_FALSE(w.grad().defined());   // the gradients are cleared after the last minibatch
}

// The window's streaming form ((1/W) Σ‖g_t‖² − ‖ḡ‖²) / ‖ḡ‖² against the two-pass ratio above, on
// gradients held in two parameters (one of them never reached on the second step: zeros).
TEST_CASE("training's noise window equals the two-pass noise-to-signal over the same gradients, and restarts after each take",
          "[unit][gradient_noise]") {
    Tensor a = Tensor::zeros({2}, DType::f64), b = Tensor::zeros({1}, DType::f32);
    train::GradientNoiseWindow window;
    const std::vector<std::vector<double>> steps = {{0.3, -1.2, 2.0}, {0.9, -0.4, 0.0}, {-0.2, -1.0, 2.5}};
    for (const auto& g : steps) {
        a.set_grad(Tensor::from_data({g[0], g[1]}, {2}, DType::f64));
        b = Tensor::zeros({1}, DType::f32);   // a fresh parameter has no gradient until one is set
        if (g[2] != 0) b.set_grad(Tensor::from_data({g[2]}, {1}, DType::f32));
        window.add({a, b});
    }
    CHECK(window.take() == Approx(gradient_noise_to_signal(steps)).epsilon(1e-6));
    // A new window: one step has no spread to measure.
    window.add({a, b});
    CHECK(std::isnan(window.take()));
    // Two equal steps: no noise.
    window.add({a, b});
    window.add({a, b});
    CHECK(window.take() == 0);
}
