#include "autograd/rounded_copy.h"

#include <algorithm>

#include "autograd/error.h"
#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/mode.h"

namespace tf {

bool products_in_bf16(DType dtype) {
    return dtype == DType::f32 && !kernels::use_reference() && kernels::matmul_precision() == kernels::MatmulPrecision::bf16;
}

// Rounding is the cheapest pass over memory there is (4 bytes read and 2 written a value), so a
// second thread pays only for large tensors: waking it costs as much as rounding a few hundred
// thousand values on this one (bench_threads times both sides). Past this many values a tensor
// is rounded in kParallelGrain-sized chunks over the threads.
constexpr int64_t kThreadedRoundingValues = int64_t{1} << 20;

RoundedCopy::RoundedCopy(const Tensor& x) {
    if (x.dtype() != DType::f32) throw ValueError("RoundedCopy: expected an f32 tensor, got " + dtype_name(x.dtype()));
    const int64_t n = x.numel();
    auto storage = std::make_shared<Storage>(static_cast<std::size_t>(n) * sizeof(kernels::bfloat16_bits));
    const float* from = x.data<float>();
    auto* to = static_cast<kernels::bfloat16_bits*>(storage->data());
    constexpr int64_t kChunk = kernels::kParallelGrain;
    kernels::parallel_for((n + kChunk - 1) / kChunk, n > kThreadedRoundingValues, [&](int64_t chunk) {
        const int64_t begin = chunk * kChunk;
        kernels::round_to_bfloat16(from + begin, to + begin, std::min(kChunk, n - begin));
    });
    storage_ = std::move(storage);
}

RoundedCopy RoundedCopy::filled(int64_t n, const std::function<void(kernels::bfloat16_bits*)>& fill) {
    auto storage = std::make_shared<Storage>(static_cast<std::size_t>(n) * sizeof(kernels::bfloat16_bits));
    fill(static_cast<kernels::bfloat16_bits*>(storage->data()));
    return RoundedCopy(std::move(storage));
}

}  // namespace tf
