// Which number format the f32 matrix products multiply in. fp32 (the default) is exact f32
// arithmetic. bf16 is mixed precision: each product's operands are rounded to bfloat16, the
// multiply-adds are summed in f32 and the result is f32 (docs/math/mixed_precision.md). Everything
// else — weights, optimizer state, softmax, layer norm, the loss — stays f32. Process-wide, since
// a product may run on any OpenMP thread.
#pragma once

#include <string>

namespace tf::kernels {

enum class MatmulPrecision { fp32, bf16 };

MatmulPrecision matmul_precision();

// "" when this CPU multiplies bf16 natively (AVX512-BF16 or AMX, as oneDNN sees it: the
// ONEDNN_MAX_CPU_ISA environment variable can hide them), else a sentence naming what is missing.
// bf16 is never emulated: without those instructions it would be slower than fp32.
std::string bf16_unsupported_reason();

// Sets the precision; bf16 on a CPU without it throws ConfigError with bf16_unsupported_reason().
void set_matmul_precision(MatmulPrecision precision);

// Sets a precision while alive and restores the previous one after (a training run, a test).
class MatmulPrecisionScope {
public:
    explicit MatmulPrecisionScope(MatmulPrecision precision);
    ~MatmulPrecisionScope();
    MatmulPrecisionScope(const MatmulPrecisionScope&) = delete;
    MatmulPrecisionScope& operator=(const MatmulPrecisionScope&) = delete;

private:
    MatmulPrecision previous_;
};

}  // namespace tf::kernels
