// exp, tanh, sigmoid and the normal CDF that the compiler can vectorise. std::exp and std::tanh are libm calls, so a
// loop of them runs one element at a time unless built with -ffast-math; an exp per attention
// score, a tanh per additive-attention energy were the largest costs there. Cephes' expf and tanhf
// methods, in plain arithmetic the vectoriser understands (branches become blends).
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tf::kernels {

// The f32 functions are always inlined: a loop vectorises only around an inlined body, and GCC's
// inliner, out of budget in a large function, once left a call there, and that loop ran one
// element at a time (GELU's backward on one thread, where it is not in a function of its own).

// exp(x) = 2ⁿ·eʳ with n = round(x·log₂e) and r = x − n·ln 2 ∈ [−ln2/2, ln2/2]; eʳ by a degree-6
// polynomial (relative error ≈ 1 float ulp), 2ⁿ by writing n into the exponent bits.
// Below −87 (including −∞) it returns exactly 0, so a masked score gets exactly zero weight.
[[gnu::always_inline]] inline float vector_exp(float x) {
    const bool underflows = x < -87.0f;           // exp(−87) ≈ 1.6e−38, near the smallest normal float
    x = std::min(std::max(x, -87.0f), 88.0f);     // keeps 2ⁿ a normal float
    const float n = std::nearbyint(x * 1.44269504088896341f);   // (std::floor would not vectorise)
    const float r = x - n * 0.693359375f + n * 2.12194440e-4f;   // ln 2 in two parts (Cody–Waite): exact n·ln2
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    const float exp_r = p * r * r + r + 1.0f;
    // A NaN x takes n = 0 (converting NaN to an integer is undefined), and r carries the NaN out.
    const float two_to_n = std::bit_cast<float>(((n == n ? static_cast<int32_t>(n) : 0) + 127) << 23);
    return underflows ? 0.0f : exp_r * two_to_n;
}

// tanh x = x + x³·P(x²) for |x| < 0.625 (Cephes' minimax polynomial: no cancellation near 0),
// else sign(x)·(1 − 2 / (e^{2|x|} + 1)); within 2 float ulps. Large |x| gives exactly ±1.
[[gnu::always_inline]] inline float vector_tanh(float x) {
    const float a = std::abs(x);
    const float z = x * x;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    const float small = p * z * x + x;
    const float large = 1.0f - 2.0f / (vector_exp(2.0f * a) + 1.0f);
    return a < 0.625f ? small : (x < 0 ? -large : large);
}

// σ(x) = 1 / (1 + e⁻ˣ) for x ≥ 0, eˣ / (1 + eˣ) for x < 0: e^{−|x|} never overflows.
[[gnu::always_inline]] inline float vector_sigmoid(float x) {
    const float e = vector_exp(-std::abs(x));
    return (x >= 0 ? 1.0f : e) / (1.0f + e);
}

// Φ(x) = ½·erfc(−x/√2), the standard normal CDF (GELU's gate). erfc(u), u ≥ 0, by Numerical
// Recipes' Chebyshev fit: erfc(u) = t·exp(−u² − 1.26551223 + t·P(t)), t = 1/(1 + u/2), relative
// error < 1.2e−7 everywhere. Then Φ(x) = ½·erfc(|x|/√2) for x < 0 (the tail keeps its relative
// precision) and 1 − ½·erfc(x/√2) for x ≥ 0.
[[gnu::always_inline]] inline float vector_normal_cdf(float x) {
    const float u = std::abs(x) * 0.70710678118654752f;
    const float t = 1.0f / (1.0f + 0.5f * u);
    float p = 0.17087277f;
    p = p * t - 0.82215223f;
    p = p * t + 1.48851587f;
    p = p * t - 1.13520398f;
    p = p * t + 0.27886807f;
    p = p * t - 0.18628806f;
    p = p * t + 0.09678418f;
    p = p * t + 0.37409196f;
    p = p * t + 1.00002368f;
    const float half_erfc = 0.5f * t * vector_exp(-u * u - 1.26551223f + t * p);
    return x < 0 ? half_erfc : 1.0f - half_erfc;
}

// f64 is for gradient checks, where exactness matters more than speed.
// max_j x_j, skipping NaN; −∞ for an empty or fully masked row. OpenMP's reduction starts where the
// compiler likes (GCC −∞, clang the lowest float): a row that reduces to that is scanned again from −∞.
template <class T>
[[gnu::always_inline]] inline T vector_row_max(const T* x, int64_t n) {
    T largest = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : largest)
    for (int64_t j = 0; j < n; ++j) largest = x[j] > largest ? x[j] : largest;
    if (largest > std::numeric_limits<T>::lowest()) return largest;
    largest = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < n; ++j) largest = x[j] > largest ? x[j] : largest;
    return largest;
}

inline double vector_exp(double x) { return std::exp(x); }
inline double vector_tanh(double x) { return std::tanh(x); }
inline double vector_normal_cdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752); }
inline double vector_sigmoid(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

}  // namespace tf::kernels
