// The FMA microkernel: 16 accumulator chains per thread, enough to hide FMA latency on two ports.
#include "analysis/fma_peak.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>

namespace tf::analysis {

namespace {

#ifdef __AVX512F__
using Vec = __m512;
constexpr int kLanes = 16;
Vec splat(float x) { return _mm512_set1_ps(x); }
Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
float first_lane(Vec v) { return _mm512_cvtss_f32(v); }
#else
using Vec = __m256;
constexpr int kLanes = 8;
Vec splat(float x) { return _mm256_set1_ps(x); }
Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
float first_lane(Vec v) { return _mm256_cvtss_f32(v); }
#endif

volatile float fma_sink;  // the FMA results are stored here so the compiler cannot drop the loop

// Seconds for every thread to run `iterations` rounds of 16 chained FMAs.
double time_fma_rounds(int64_t iterations) {
    constexpr int chains = 16;
    float sink = 0;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sink)
    {
        Vec acc[chains];
        for (int c = 0; c < chains; ++c) acc[c] = splat(float(c + omp_get_thread_num()));
        const Vec scale = splat(0.999999f), shift = splat(1e-6f);  // acc stays near its start: no overflow
        for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 16  // fully unrolled, acc[] lives in 16 registers instead of on the stack
            for (int c = 0; c < chains; ++c) acc[c] = fma(acc[c], scale, shift);
        for (int c = 0; c < chains; ++c) sink += first_lane(acc[c]);
    }
    fma_sink = sink;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int fma_lanes() { return kLanes; }

double fma_peak_gflops(const FmaPeakOptions& options) {
    constexpr int chains = 16;
    double best = 0;
    for (int attempt = 0; attempt < options.attempts; ++attempt) {
        const double seconds = time_fma_rounds(options.iterations);
        const double flops = 2.0 * kLanes * chains * double(options.iterations) * omp_get_max_threads();
        best = std::max(best, flops / seconds / 1e9);
    }
    return best;
}

}  // namespace tf::analysis
