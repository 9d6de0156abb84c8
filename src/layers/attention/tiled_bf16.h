// The tiled attention kernel's products under bf16 precision (matmul_precision.h): the inputs
// rounded to bf16 once per call, the tiles of P and dS rounded as they are made, and each tile
// product run on the rounded operands (or on the Real ones, or the reference loops).
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "autograd/kernels/bfloat16.h"
#include "autograd/kernels/gemm.h"
#include "autograd/rounded_copy.h"
#include "autograd/tensor.h"
#include "layers/attention/tiled_problem.h"
#include "layers/attention/tiled_layout.h"

namespace tf::tiled {

// Each (f32) tensor rounded to bf16 once, in its own layout (none in fp32).
using RoundedTensors = std::vector<RoundedCopy>;
inline RoundedTensors rounded_copies(const std::vector<Tensor>& tensors) {
    RoundedTensors rounded;
    for (const Tensor& x : tensors) rounded.emplace_back(x);
    return rounded;
}

// The heads `place` names: in tensors[place.input], and in its rounded copy if there is one.
template <class Real>
Heads<Real> heads_at(const HeadPlacement& place, const std::vector<Tensor>& tensors, const RoundedTensors& rounded) {
    if (rounded.empty()) return {place.in(tensors[place.input].data<Real>()), {}};
    return {place.in(tensors[place.input].data<Real>()), place.in(rounded[place.input].values())};
}

// x rounded into x16 (n values) when the products run in bf16: a tile of P or dS as it is made.
template <class Real>
void round_tile(const Problem<Real>& p, const Real* x, kernels::bfloat16_bits* x16, int64_t n) {
    if constexpr (std::is_same_v<Real, float>)
        if (p.bf16) kernels::round_to_bfloat16(x, x16, n);
}

// C = op(A)·op(B), or C += … with shape.accumulate; on the bf16 operands when the products run in bf16.
template <class Real>
void gemm_tile(const Problem<Real>& p, const TileRows<Real>& A, const TileRows<Real>& B, Real* C, const kernels::GemmShape& shape) {
    if (p.reference) {
        kernels::gemm_reference(A.real, B.real, C, shape);
        return;
    }
    if constexpr (std::is_same_v<Real, float>)
        if (p.bf16) {
            kernels::gemm(A.rounded, B.rounded, C, shape);
            return;
        }
    kernels::gemm(A.real, B.real, C, shape);
}

}  // namespace tf::tiled
