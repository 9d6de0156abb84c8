// round_to_bfloat16 with the CPU's own conversion where it has one.
#include "autograd/kernels/bfloat16.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace tf::kernels {

namespace {

#if defined(__x86_64__)
// AVX512-BF16 (CPUID.(7,1):EAX bit 5) and AVX-512F (CPUID.(7,0):EBX bit 16), with the operating
// system saving the AVX-512 registers (XCR0 bits 1, 2 and 5–7).
bool cpu_has_avx512_bf16() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(1, 0, &a, &b, &c, &d) || !(c & (1u << 27))) return false;   // OSXSAVE
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(b & (1u << 16))) return false;   // AVX-512F
    const unsigned leaves = a;
    if (leaves < 1 || !__get_cpuid_count(7, 1, &a, &b, &c, &d) || !(a & (1u << 5))) return false;
    unsigned xcr0_low = 0, xcr0_high = 0;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    constexpr unsigned kAvx512State = (1u << 1) | (1u << 2) | (1u << 5) | (1u << 6) | (1u << 7);
    return (xcr0_low & kAvx512State) == kAvx512State;
}

// 16 values per vcvtneps2bf16 (round to nearest even, as to_bfloat16), the tail under a mask.
__attribute__((target("avx512f,avx512vl,avx512bw,avx512bf16"))) void round_with_avx512_bf16(const float* x, bfloat16_bits* out,
                                                                                             int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i))));
    if (i < n) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
        const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(tail, x + i));
        _mm256_mask_storeu_epi16(out + i, tail, reinterpret_cast<__m256i>(rounded));
    }
}

const bool kHasAvx512Bf16 = cpu_has_avx512_bf16();
#endif

}  // namespace

bool rounds_with_avx512_bf16() {
#if defined(__x86_64__)
    return kHasAvx512Bf16;
#else
    return false;
#endif
}

void round_to_bfloat16(const float* x, bfloat16_bits* out, int64_t n) {
#if defined(__x86_64__)
    if (kHasAvx512Bf16) {
        round_with_avx512_bf16(x, out, n);
        return;
    }
#endif
    round_to_bfloat16_portable(x, out, n);
}

}  // namespace tf::kernels
