// The bf16 ceiling a bf16 MFU is taken against: the rate oneDNN's bf16 matmul reaches on this
// machine for a large product whose operands are already bf16 (so no rounding is timed). The FP32
// figure (fma_peak.h) is the instructions' peak; for bf16 the instructions differ by CPU
// (AVX512-BF16's dot products, AMX's tiles), so the measured roof of the library is the honest
// denominator: a step's bf16 MFU says how much of what this machine's bf16 products can do it used.
#pragma once

namespace tf::analysis {

// GFLOP/s of C = A·B in bf16 (f32 sums) for 1024 × 1024 × 1024, the best of `attempts` timed
// calls after one warm-up, on the current OpenMP threads. Throws ConfigError, naming the missing
// instructions, on a CPU without native bf16.
double bf16_matmul_roof_gflops(int attempts = 5);

}  // namespace tf::analysis
