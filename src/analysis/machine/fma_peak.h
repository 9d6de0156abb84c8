// This machine's FP32 peak, measured: every OpenMP thread runs a loop of independent fused
// multiply-adds held in registers, with the widest instruction set this CPU has (AVX-512, AVX2 +
// FMA, or plain SSE), whatever the build was compiled for. The denominator of
// "share of peak" figures (bench_matmul, `tapeformer bench`'s MFU).
#pragma once
#include <cstdint>

namespace tf::analysis {

struct FmaPeakOptions {
    int64_t iterations = 50'000'000;  // rounds per thread per attempt (~0.07 s at 3 GHz with AVX-512)
    int attempts = 5;                 // the best attempt counts: a busy machine only slows one down
};

// Peak GFLOP/s = 2 flops · lanes · FMAs / second, summed over the current OpenMP thread count.
double fma_peak_gflops(const FmaPeakOptions& options = {});

// FP32 lanes of the widest FMA instruction this CPU has (16 with AVX-512, 8 with AVX2, 4 with SSE).
int fma_lanes();

}  // namespace tf::analysis
