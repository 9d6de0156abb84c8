// A tensor's f32 values rounded to bf16 once, in the tensor's own layout, for products that
// multiply the same operand more than once under bf16 precision (matmul_precision.h): a linear
// layer's input and weight, multiplied again by its backward; attention's Q, K and V, multiplied
// by every tile. The f32 gemm would round an operand again on every call.
#pragma once
#include <functional>
#include <memory>

#include "autograd/kernels/bfloat16.h"
#include "autograd/storage.h"
#include "autograd/tensor.h"

namespace tf {

// Whether products of `dtype` tensors run in bf16: f32 under bf16 precision, not the reference
// loops (those stay the readable f32 path).
bool products_in_bf16(DType dtype);

// The copy is tensor memory (Storage): counted in peak memory and held to its limit like the
// tensor it copies. Copying a RoundedCopy shares the values.
class RoundedCopy {
public:
    explicit RoundedCopy(const Tensor& x);   // x: f32
    // n values written by `fill`: for a kernel that makes the rounded values on its way through
    // something else (a linear layer's output gradient, with its ReLU mask and bias gradient).
    static RoundedCopy filled(int64_t n, const std::function<void(kernels::bfloat16_bits*)>& fill);
    const kernels::bfloat16_bits* values() const { return static_cast<const kernels::bfloat16_bits*>(storage_->data()); }

private:
    explicit RoundedCopy(std::shared_ptr<const Storage> storage) : storage_(std::move(storage)) {}
    std::shared_ptr<const Storage> storage_;
};

}  // namespace tf
