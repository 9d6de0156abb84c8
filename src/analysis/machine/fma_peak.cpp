// The FMA microkernel: independent accumulator chains per thread, enough to hide FMA latency on
// two ports, compiled once per instruction set and chosen at run time for this CPU.
#include "analysis/machine/fma_peak.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>

namespace tf::analysis {

namespace {

constexpr int kChains = 12;   // independent multiply-adds in flight: ≥ 2 ports × 4 cycles of latency

// One thread's `iterations` rounds of kChains chained acc·scale + shift in this instruction set's
// widest registers; returns a value that depends on every result, so the compiler cannot drop the
// loop. Written out once per instruction set (GCC's intrinsics cannot be inlined into a template
// compiled for another), each compiled for its own whatever the build targets, and picked at run
// time (fma_lanes): a portable build (TF_NATIVE=OFF) still measures this machine's peak.
[[gnu::target("avx512f")]] float fma_chains_avx512(int64_t iterations, float start) {
    __m512 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(start + float(c));
    const __m512 scale = _mm512_set1_ps(0.999999f), shift = _mm512_set1_ps(1e-6f);  // acc stays near its start
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12  // fully unrolled, acc[] lives in registers instead of on the stack
        for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], scale, shift);
    float sum = 0;
    for (int c = 0; c < kChains; ++c) sum += _mm512_cvtss_f32(acc[c]);
    return sum;
}

[[gnu::target("avx2,fma")]] float fma_chains_avx2(int64_t iterations, float start) {
    __m256 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(start + float(c));
    const __m256 scale = _mm256_set1_ps(0.999999f), shift = _mm256_set1_ps(1e-6f);
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
        for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], scale, shift);
    float sum = 0;
    for (int c = 0; c < kChains; ++c) sum += _mm256_cvtss_f32(acc[c]);
    return sum;
}

// Plain x86-64 has no FMA: a multiply and an add, the same 2 flops per lane.
float fma_chains_sse(int64_t iterations, float start) {
    __m128 acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = _mm_set1_ps(start + float(c));
    const __m128 scale = _mm_set1_ps(0.999999f), shift = _mm_set1_ps(1e-6f);
    for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
        for (int c = 0; c < kChains; ++c) acc[c] = _mm_add_ps(_mm_mul_ps(acc[c], scale), shift);
    float sum = 0;
    for (int c = 0; c < kChains; ++c) sum += _mm_cvtss_f32(acc[c]);
    return sum;
}

float run_fma_chains(int64_t iterations, float start) {
    switch (fma_lanes()) {
        case 16: return fma_chains_avx512(iterations, start);
        case 8: return fma_chains_avx2(iterations, start);
        default: return fma_chains_sse(iterations, start);
    }
}

volatile float fma_sink;  // the FMA results are stored here so the compiler cannot drop the loop

// Seconds for every thread to run `iterations` rounds of the chains.
double time_fma_rounds(int64_t iterations) {
    float sink = 0;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    sink += run_fma_chains(iterations, float(omp_get_thread_num()));
    fma_sink = sink;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int fma_lanes() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 4;
}

double fma_peak_gflops(const FmaPeakOptions& options) {
    double best = 0;
    for (int attempt = 0; attempt < options.attempts; ++attempt) {
        const double seconds = time_fma_rounds(options.iterations);
        const double flops = 2.0 * fma_lanes() * kChains * double(options.iterations) * omp_get_max_threads();
        best = std::max(best, flops / seconds / 1e9);
    }
    return best;
}

}  // namespace tf::analysis
