// Reductions along one axis of a tensor viewed as (outer, n, inner):
//   sum: out[o, i] = Σ_k x[o, k, i]        max: out[o, i] = max_k x[o, k, i] (and where it was)
#pragma once
#include <cstdint>

#include "autograd/kernels/bfloat16.h"

namespace tf::kernels {

struct AxisView {
    int64_t outer = 1, n = 1, inner = 1;  // x is read as (outer, n, inner), out as (outer, inner)
};

template <class T>
void sum_axis(const T* x, T* out, const AxisView& view);
// argmax receives the first k where the maximum is reached (ties go to the lowest index).
template <class T>
void max_axis(const T* x, T* out, int64_t* argmax, const AxisView& view);

// A ReLU's backward and the bias gradient under it, in one pass over rows × cols:
//   g = dy ⊙ [y > 0]        column_sums_j = Σ_i g_ij
template <class T>
void relu_backward_column_sums(const T* y, const T* dy, T* g, T* column_sums, int64_t rows, int64_t cols);

// The same pass for a linear layer whose products run in bf16: its output gradient rounded once
// for both products, with the ReLU mask and the bias gradient on the way (g itself is never
// written in f32, since only the rounded copy is multiplied):
//   g = dy ⊙ [y > 0] under a ReLU (relu_output = y), or dy (relu_output null)
//   g16 = bf16(g)        column_sums_j = Σ_i g_ij (skipped when column_sums is null)
void rounded_output_gradient(const float* dy, const float* relu_output, bfloat16_bits* g16, float* column_sums, int64_t rows,
                             int64_t cols);

}  // namespace tf::kernels
