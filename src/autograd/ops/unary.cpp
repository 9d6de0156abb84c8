// Elementwise functions. Backward reuses the forward result y where the derivative is a function
// of it (exp, sqrt, tanh, sigmoid), and fuses "dy times derivative" into one pass with zip.
#include <cmath>
#include <numbers>

#include "autograd/error.h"
#include "autograd/kernels/elementwise.h"
#include "autograd/kernels/vector_math.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {
constexpr double inv_sqrt_2pi = 0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2;  // 1/√(2π)
}  // namespace

// ── exp ──   y = eˣ            dx = dy ⊙ y
Tensor exp(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return std::exp(v); });
    return record("exp", {x}, y, [y](const Tensor& dy) -> Grads { return {mul(dy, y)}; });
}

// ── log ──   y = ln x          dx = dy / x
Tensor log(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return std::log(v); });
    return record("log", {x}, y, [x](const Tensor& dy) -> Grads { return {div(dy, x)}; });
}

// ── sqrt ──  y = √x            dx = dy / (2y)
Tensor sqrt(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return std::sqrt(v); });
    return record("sqrt", {x}, y, [y](const Tensor& dy) -> Grads {
        return {kernels::zip(dy, y, [](auto g, auto out) { return g / (2 * out); })};
    });
}

// ── pow ──   y = xᵖ            dx = dy ⊙ p·xᵖ⁻¹   (p = 0: y = 1 and dx = 0, also at x = 0)
Tensor pow(const Tensor& x, double exponent) {
    Tensor y = kernels::map(x, [exponent](auto v) { return std::pow(v, static_cast<decltype(v)>(exponent)); });
    return record("pow", {x}, y, [x, exponent](const Tensor& dy) -> Grads {
        if (exponent == 0) return {Tensor::zeros(dy.shape(), dy.dtype())};   // not 0·0⁻¹ = NaN
        return {kernels::zip(dy, x, [exponent](auto g, auto v) {
            using T = decltype(v);
            return g * static_cast<T>(exponent) * std::pow(v, static_cast<T>(exponent - 1));
        })};
    });
}

// ── tanh ──  y = tanh x        dx = dy ⊙ (1 − y²)
Tensor tanh(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return std::tanh(v); }, [](auto v) { return kernels::vector_tanh(v); });
    return record("tanh", {x}, y, [y](const Tensor& dy) -> Grads {
        return {kernels::zip(dy, y, [](auto g, auto out) { return g * (1 - out * out); })};
    });
}

// ── sigmoid ──  y = 1 / (1 + e⁻ˣ)    dx = dy ⊙ y(1 − y)
Tensor sigmoid(const Tensor& x) {
    const auto reference = [](auto v) {
        // Branch so that exp never overflows: for v < 0 use eᵛ / (1 + eᵛ).
        using T = decltype(v);
        if (v >= 0) return T(1) / (T(1) + std::exp(-v));
        const T e = std::exp(v);
        return e / (T(1) + e);
    };
    Tensor y = kernels::map(x, reference, [](auto v) { return kernels::vector_sigmoid(v); });
    return record("sigmoid", {x}, y, [y](const Tensor& dy) -> Grads {
        return {kernels::zip(dy, y, [](auto g, auto out) { return g * out * (1 - out); })};
    });
}

// ── relu ──  y = max(x, 0)     dx = dy ⊙ [x > 0]
Tensor relu(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return v > 0 ? v : decltype(v)(0); });
    return record("relu", {x}, y, [x](const Tensor& dy) -> Grads {
        return {kernels::zip(dy, x, [](auto g, auto v) { return v > 0 ? g : decltype(g)(0); })};
    });
}

// ── gelu ──  y = x·Φ(x),  Φ(x) = ½(1 + erf(x/√2))
//            dx = dy ⊙ (Φ(x) + x·φ(x)),  φ(x) = e^(−x²/2) / √(2π)
// Φ and φ as the reference path computes them (libm) and as the fast path does (vectorisable).
Tensor gelu(const Tensor& x) {
    const auto cdf = [](auto v) { return decltype(v)(0.5) * (1 + std::erf(v * decltype(v)(std::numbers::sqrt2 / 2))); };
    const auto pdf = [](auto v) { return std::exp(decltype(v)(-0.5) * v * v) * decltype(v)(inv_sqrt_2pi); };
    const auto fast_cdf = [](auto v) { return kernels::vector_normal_cdf(v); };
    const auto fast_pdf = [](auto v) { return kernels::vector_exp(decltype(v)(-0.5) * v * v) * decltype(v)(inv_sqrt_2pi); };
    Tensor y = kernels::map(x, [cdf](auto v) { return v * cdf(v); }, [fast_cdf](auto v) { return v * fast_cdf(v); });
    return record("gelu", {x}, y, [x, cdf, pdf, fast_cdf, fast_pdf](const Tensor& dy) -> Grads {
        // BEGIN SOLUTION A1.2
        return {kernels::zip(
            dy, x, [cdf, pdf](auto g, auto v) { return g * (cdf(v) + v * pdf(v)); },
            [fast_cdf, fast_pdf](auto g, auto v) { return g * (fast_cdf(v) + v * fast_pdf(v)); }, "gelu")};
        // END SOLUTION
    });
}

}  // namespace tf
