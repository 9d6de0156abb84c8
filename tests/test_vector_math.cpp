// The vectorisable exp, tanh, sigmoid and normal CDF of the fast elementwise path against libm,
// element by element.
#include "catch.h"

#include <cmath>
#include <limits>

#include "analysis/theorems/measured.h"
#include "autograd/kernels/vector_math.h"

using namespace tf;

namespace {

// Largest |fast(x) − exact(x)| over x in [low, high] by `step`, in units of the float spacing at
// exact(x) (one ulp: the gap from exact rounded to float to the next float away from 0).
template <class Fast, class Exact>
double worst_ulps(Fast fast, Exact exact, float low, float high, float step) {
    double worst = 0;
    for (float x = low; x <= high; x += step) {
        const double want = exact(double(x));
        const float rounded = std::abs(float(want));
        const double ulp = double(std::nextafter(rounded, std::numeric_limits<float>::infinity())) - double(rounded);
        worst = tf::worse_of(worst, std::abs(double(fast(x)) - want) / ulp);
    }
    return worst;
}

// Largest |fast(x) − exact(x)| / max(|exact(x)|, tiny) over x in [low, high] by `step`.
template <class Fast, class Exact>
double worst_relative_error(Fast fast, Exact exact, float low, float high, float step) {
    double worst = 0;
    for (float x = low; x <= high; x += step) {
        const double want = exact(double(x));
        worst = tf::worse_of(worst, std::abs(double(fast(x)) - want) / std::max(std::abs(want), 1e-30));
    }
    return worst;
}

}  // namespace

TEST_CASE("vector_tanh: within 2 float ulps of tanh, odd, exactly ±1 far out", "[unit]") {
    const auto fast = [](float x) { return kernels::vector_tanh(x); };
    const auto exact = [](double x) { return std::tanh(x); };
    CHECK(worst_ulps(fast, exact, -20.0f, 20.0f, 0.00731f) <= 2);
    CHECK(worst_ulps(fast, exact, -1e-3f, 1e-3f, 1.3e-6f) <= 2);  // near 0: no cancellation
    CHECK(kernels::vector_tanh(0.0f) == 0.0f);
    CHECK(kernels::vector_tanh(-0.3f) == -kernels::vector_tanh(0.3f));
    CHECK(kernels::vector_tanh(100.0f) == 1.0f);
    CHECK(kernels::vector_tanh(-std::numeric_limits<float>::infinity()) == -1.0f);
}

TEST_CASE("vector_sigmoid: within 2 float ulps of the logistic function, no overflow", "[unit]") {
    const auto fast = [](float x) { return kernels::vector_sigmoid(x); };
    const auto exact = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
    CHECK(worst_ulps(fast, exact, -80.0f, 30.0f, 0.00731f) <= 2);
    CHECK(kernels::vector_sigmoid(0.0f) == 0.5f);
    CHECK(kernels::vector_sigmoid(200.0f) == 1.0f);
    CHECK(kernels::vector_sigmoid(-200.0f) == 0.0f);
}

TEST_CASE("vector_exp: within 2 float ulps of std::exp, and exactly 0 for −∞", "[unit]") {
    const auto fast = [](float x) { return kernels::vector_exp(x); };
    const auto exact = [](double x) { return std::exp(x); };
    CHECK(worst_ulps(fast, exact, -87.0f, 88.0f, 0.0137f) <= 2);
    CHECK(kernels::vector_exp(-std::numeric_limits<float>::infinity()) == 0.0f);
    CHECK(kernels::vector_exp(-100.0f) == 0.0f);
    CHECK(kernels::vector_exp(0.0f) == 1.0f);
}

TEST_CASE("vector_normal_cdf: the normal CDF within 2e-7, the left tail to a few ppm relative", "[unit]") {
    const auto fast = [](float x) { return kernels::vector_normal_cdf(x); };
    const auto exact = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
    double worst_absolute = 0;
    for (float x = -12.0f; x <= 8.0f; x += 0.00731f) worst_absolute = tf::worse_of(worst_absolute, std::abs(fast(x) - exact(x)));
    CHECK(worst_absolute < 2e-7);
    // ½(1 + erf) in float loses the tail to cancellation (relative error 1e-3 at x = −4); erfc keeps it,
    // up to the rounding of the exponent −x²/2 (relative error grows like x²·ε).
    CHECK(worst_relative_error(fast, exact, -6.0f, 8.0f, 0.00731f) < 5e-6);
    CHECK(worst_relative_error(fast, exact, -1.0f, 8.0f, 0.00731f) < 5e-7);
    CHECK(kernels::vector_normal_cdf(0.0f) == Approx(0.5f).epsilon(1e-7));
    CHECK(kernels::vector_normal_cdf(10.0f) == 1.0f);
    CHECK(kernels::vector_normal_cdf(-std::numeric_limits<float>::infinity()) == 0.0f);
}
