// Learning-rate schedules at steps worked out by hand (warmup boundary, decay, floor), and
// clipping by global gradient norm.
#include <cmath>
#include <limits>
#include <numbers>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "train/schedule.h"

using namespace tf;
using namespace tf::train;
using tf::test::require_values;

TEST_CASE("linear schedule: warmup to the peak, linear decay to min_lr, then min_lr", "[unit]") {
    // peak 1, W 4, N 10, min 0.1: s ≤ 4 → s/4; 4 < s ≤ 10 → 0.1 + 0.9·(10 − s)/6; after → 0.1.
    const auto lr = [](int64_t s) { return linear_lr(s, 1.0, 4, 10, 0.1); };
    REQUIRE(lr(1) == Approx(0.25).epsilon(1e-15));
    REQUIRE(lr(3) == Approx(0.75).epsilon(1e-15));
    REQUIRE(lr(4) == Approx(1.0).epsilon(1e-15));  // warmup boundary: the peak
    REQUIRE(lr(5) == Approx(0.1 + 0.9 * 5 / 6).epsilon(1e-15));
    REQUIRE(lr(7) == Approx(0.55).epsilon(1e-15));
    REQUIRE(lr(10) == Approx(0.1).epsilon(1e-15));  // the end: min_lr
    REQUIRE(lr(1000) == 0.1);
    // No warmup: the first update is already one step down the line, (N − 1)/N of the peak.
    REQUIRE(linear_lr(1, 1.0, 0, 4, 0) == Approx(0.75).epsilon(1e-15));
}

TEST_CASE("cosine schedule: warmup, half a cosine down to min_lr, then min_lr", "[unit]") {
    // peak 1, W 2, N 6, min 0.1: progress = (s − 2)/4, lr = 0.1 + 0.45·(1 + cos(π·progress)).
    const auto lr = [](int64_t s) { return cosine_lr(s, 1.0, 2, 6, 0.1); };
    REQUIRE(lr(1) == Approx(0.5).epsilon(1e-15));
    REQUIRE(lr(2) == Approx(1.0).epsilon(1e-15));
    REQUIRE(lr(3) == Approx(0.1 + 0.45 * (1 + std::sqrt(0.5))).epsilon(1e-15));
    REQUIRE(lr(4) == Approx(0.55).epsilon(1e-15));  // halfway: the mean of peak and floor
    REQUIRE(lr(6) == Approx(0.1).epsilon(1e-15));
    REQUIRE(lr(7) == 0.1);
}

TEST_CASE("noam schedule: scale·d_model^-1/2·min(s^-1/2, s·W^-3/2)", "[unit]") {
    // scale 2, d_model 64 (2/√64 = 0.25), W 100: peak at s = 100 of 0.25·100^−½ = 0.025.
    REQUIRE(noam_lr(1, 2.0, 64, 100) == Approx(0.25 * 1e-3).epsilon(1e-14));   // 0.25·1·100^−1.5
    REQUIRE(noam_lr(50, 2.0, 64, 100) == Approx(0.25 * 50e-3).epsilon(1e-14));  // still rising linearly
    REQUIRE(noam_lr(100, 2.0, 64, 100) == Approx(0.025).epsilon(1e-14));
    REQUIRE(noam_lr(400, 2.0, 64, 100) == Approx(0.0125).epsilon(1e-14));     // 0.25·400^−½
    REQUIRE(noam_lr(99, 2.0, 64, 100) < noam_lr(100, 2.0, 64, 100));
    REQUIRE(noam_lr(101, 2.0, 64, 100) < noam_lr(100, 2.0, 64, 100));
}

TEST_CASE("scheduled_lr dispatches on the kind and steps count from 1", "[unit]") {
    ScheduleConfig config;
    REQUIRE(scheduled_lr(config, 0.3, 1) == 0.3);
    REQUIRE(scheduled_lr(config, 0.3, 123456) == 0.3);
    config = {.kind = ScheduleKind::cosine, .warmup_steps = 2, .min_lr = 0.1, .total_steps = 6};
    REQUIRE(scheduled_lr(config, 1.0, 4) == Approx(0.55));
    config = {.kind = ScheduleKind::noam, .warmup_steps = 100, .scale = 2, .d_model = 64};
    REQUIRE(scheduled_lr(config, 123.0, 100) == Approx(0.025));  // noam ignores the peak lr
    REQUIRE_THROWS_WITH(scheduled_lr(config, 1.0, 0), Catch::Contains("steps count from 1, got 0"));
    REQUIRE_THROWS_AS(linear_lr(0, 1.0, 4, 10, 0.1), ValueError);
}

namespace {
Tensor with_grad(const std::vector<double>& grad, DType dtype = DType::f64) {
    Tensor p = Tensor::zeros({static_cast<int64_t>(grad.size())}, dtype);
    p.set_requires_grad(true);
    p.set_grad(Tensor::from_data(grad, p.shape(), dtype));
    return p;
}
}  // namespace

TEST_CASE("clip_grad_norm scales to max_norm and returns the norm before clipping", "[unit]") {
    // ‖g‖ = √(3² + 4²) = 5 > 1: every gradient times 1/(5 + 1e-6).
    Tensor a = with_grad({3, 0}), b = with_grad({0, 4}, DType::f32), no_grad = Tensor::zeros({2});
    REQUIRE(clip_grad_norm({a, b, no_grad}, 1.0) == 5.0);
    const double coefficient = 1.0 / (5 + 1e-6);
    require_values(a.grad(), {3 * coefficient, 0}, 1e-15);
    require_values(b.grad(), {0, 4 * coefficient}, 1e-7);
    const double after = std::hypot(a.grad().to_vector()[0], b.grad().to_vector()[1]);
    REQUIRE(after == Approx(1.0).epsilon(1e-6));
    REQUIRE(after < 1.0);
}

TEST_CASE("clip_grad_norm leaves small gradients alone", "[unit]") {
    Tensor a = with_grad({3, 0}), b = with_grad({0, 4});
    const Tensor grad_before = a.grad();
    REQUIRE(clip_grad_norm({a, b}, 10.0) == 5.0);
    REQUIRE(a.grad().shares_storage(grad_before));
    require_values(a.grad(), {3, 0}, 0);
    require_values(b.grad(), {0, 4}, 0);
}

TEST_CASE("clip_grad_norm returns a non-finite norm and scales nothing", "[unit]") {
    Tensor a = with_grad({3, std::numeric_limits<double>::quiet_NaN()}), b = with_grad({100, 0});
    REQUIRE(std::isnan(clip_grad_norm({a, b}, 1.0)));
    require_values(b.grad(), {100, 0}, 0);
    Tensor c = with_grad({std::numeric_limits<double>::infinity(), 1});
    REQUIRE(std::isinf(clip_grad_norm({c, b}, 1.0)));
    require_values(b.grad(), {100, 0}, 0);
}

TEST_CASE("clip_grad_norm scales a gradient shared by two parameters once", "[unit]") {
    // loss = Σ(a + b): add's backward hands the same ones tensor to both, ‖g‖ = √4 = 2.
    Tensor a = Tensor::zeros({2}, DType::f64).set_requires_grad(true);
    Tensor b = Tensor::zeros({2}, DType::f64).set_requires_grad(true);
    Tape::current().backward(sum(add(a, b)));
    REQUIRE(clip_grad_norm({a, b}, 1.0) == 2.0);
    require_values(a.grad(), {1 / (2 + 1e-6), 1 / (2 + 1e-6)}, 1e-15);
    require_values(b.grad(), {1 / (2 + 1e-6), 1 / (2 + 1e-6)}, 1e-15);
}

TEST_CASE("clip_grad_norm counts a parameter listed twice once", "[unit]") {
    Tensor tied = with_grad({3, 4});
    REQUIRE(clip_grad_norm({tied, tied}, 1.0) == 5.0);
    require_values(tied.grad(), {3 / (5 + 1e-6), 4 / (5 + 1e-6)}, 1e-15);
    REQUIRE_THROWS_AS(clip_grad_norm({tied}, 0.0), ValueError);
}

TEST_CASE("clip_grad_norm on a large gradient matches the sum of squares", "[unit]") {
    Rng rng(5);
    Tensor p = Tensor::zeros({300000});  // above the threading threshold
    p.set_requires_grad(true);
    p.set_grad(Tensor::normal({300000}, 0, 1, rng));
    double sum_squares = 0;
    for (double g : p.grad().to_vector()) sum_squares += g * g;
    REQUIRE(clip_grad_norm({p}, 1e9) == Approx(std::sqrt(sum_squares)).epsilon(1e-12));
}
