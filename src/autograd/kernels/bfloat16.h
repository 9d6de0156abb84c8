// bfloat16: the top 16 bits of an IEEE f32 — the same sign and 8-bit exponent (so the same range,
// 1e-38 … 3e38), 7 mantissa bits instead of 23 (about 3 significant decimal digits). Rounding an
// f32 to it is integer arithmetic on the bits; widening it back is a shift.
#pragma once

#include <bit>
#include <cstdint>

namespace tf::kernels {

using bfloat16_bits = uint16_t;

// Round to nearest, ties to even: add 0x7FFF plus the lowest kept bit, then drop the low 16 bits.
// (A carry out of the mantissa bumps the exponent, which is the correct rounding; the largest
// finite floats round to infinity, as IEEE rounding does.) A NaN stays a quiet NaN.
inline bfloat16_bits to_bfloat16(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
    const bool is_nan = (bits & 0x7FFFFFFFu) > 0x7F800000u;
    return static_cast<bfloat16_bits>(is_nan ? (bits >> 16) | 0x0040u : rounded);
}

// Exact: every bfloat16 is an f32.
inline float from_bfloat16(bfloat16_bits b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

// to_bfloat16 over n values (a plain loop the compiler vectorises: no branch): the readable path.
inline void round_to_bfloat16_portable(const float* x, bfloat16_bits* out, int64_t n) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = to_bfloat16(x[i]);
}

// The same rounding, by AVX512-BF16's vcvtneps2bf16 (16 values an instruction) where the CPU has
// it, whatever the build targets; else the portable loop. One difference: that instruction
// treats a denormal input (|x| < 2⁻¹²⁶) as zero and gives ±0, where to_bfloat16 rounds it.
void round_to_bfloat16(const float* x, bfloat16_bits* out, int64_t n);
bool rounds_with_avx512_bf16();   // whether round_to_bfloat16 uses the instruction here

}  // namespace tf::kernels
