// Reductions along one axis of a tensor viewed as (outer, n, inner):
//   sum: out[o, i] = Σ_k x[o, k, i]        max: out[o, i] = max_k x[o, k, i] (and where it was)
#pragma once
#include <cstdint>

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

}  // namespace tf::kernels
