// The bf16 matmul roof: one large product of bf16 operands, timed a few times.
#include "analysis/machine/matmul_roof.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/bfloat16.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/matmul_precision.h"

namespace tf::analysis {

double bf16_matmul_roof_gflops(int attempts) {
    if (const std::string reason = kernels::bf16_unsupported_reason(); !reason.empty()) throw ConfigError(reason);
    constexpr int64_t n = 1024;
    // Values of either sign, not zeros (a product of zeros can run faster than real data).
    std::vector<float> values(n * n);
    for (int64_t i = 0; i < n * n; ++i) values[i] = static_cast<float>((i * 7919 % 2003) - 1001) / 1001.0f;
    std::vector<kernels::bfloat16_bits> A(n * n), B(n * n);
    kernels::round_to_bfloat16(values.data(), A.data(), n * n);
    std::reverse(values.begin(), values.end());
    kernels::round_to_bfloat16(values.data(), B.data(), n * n);
    std::vector<float> C(n * n);
    const kernels::GemmShape shape{.M = n, .N = n, .K = n};
    kernels::gemm(A.data(), B.data(), C.data(), shape);   // warm-up: creates the primitive
    double best = 0;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        const auto start = std::chrono::steady_clock::now();
        kernels::gemm(A.data(), B.data(), C.data(), shape);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, 2.0 * n * n * n / seconds / 1e9);
    }
    return best;
}

}  // namespace tf::analysis
