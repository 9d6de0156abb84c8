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
// Training refuses bf16 then (train/run_config.h, check_precision): emulated, it is slower than fp32.
std::string bf16_unsupported_reason();

// How the bf16 products run. native: oneDNN on the CPU's bf16 instructions. emulated: each operand
// rounded to bf16 and widened back to f32 (exactly), then an f32 product — the products of bf16
// values summed in f32, which is what the instructions compute, up to the order of the f32 sums.
// Emulated on a CPU without the instructions, and on any CPU when the environment has
// TF_BF16=emulated; so the bf16 numerics are tested on every CPU, and where the CPU has the
// instructions a test holds the two equal.
enum class Bf16Products { native, emulated };
Bf16Products bf16_products();
// native on a CPU without the instructions throws ConfigError with bf16_unsupported_reason().
void set_bf16_products(Bf16Products products);

// Sets the precision (bf16 runs on every CPU: natively or emulated, as bf16_products() says).
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
