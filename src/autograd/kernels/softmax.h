// Softmax and log-softmax over the last axis of a (rows, cols) matrix, forward and backward.
// A row that is entirely −∞ (every key masked) gives 0, never NaN: there is nothing to attend to.
#pragma once
#include <cstdint>

namespace tf::kernels {

template <class T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols);
template <class T>
void log_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols);
// dx = y ⊙ (dy − Σ_j dy_j y_j)
template <class T>
void softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols);
// dx = dy − softmax(x) · Σ_j dy_j,   softmax(x) = exp(log_softmax(x))
template <class T>
void log_softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols);

}  // namespace tf::kernels
