// exp that the compiler can vectorise. std::exp is a libm call, so a loop of them runs one element
// at a time unless built with -ffast-math; the attention kernels take an exp per score, which made
// it their largest cost. Cephes' expf method, in plain arithmetic the vectoriser understands.
#pragma once
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace tf {

// exp(x) = 2ⁿ·eʳ with n = round(x·log₂e) and r = x − n·ln 2 ∈ [−ln2/2, ln2/2]; eʳ by a degree-6
// polynomial (relative error ≈ 1 float ulp), 2ⁿ by writing n into the exponent bits.
// Below −87 (including −∞) it returns exactly 0, so a masked score gets exactly zero weight.
inline float vector_exp(float x) {
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
    const float two_to_n = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
    return underflows ? 0.0f : exp_r * two_to_n;
}

// f64 is for gradient checks, where exactness matters more than speed.
inline double vector_exp(double x) { return std::exp(x); }

}  // namespace tf
