// Row-wise softmax kernels. The row function is the readable part; the fast path runs the same
// row function on many threads.
#include "autograd/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/kernels/vector_math.h"

namespace tf::kernels {

namespace {

// Calls row_fn(r) for every row, on threads when the work is large enough.
template <class RowFn>
void for_each_row(int64_t rows, int64_t cols, RowFn row_fn) {
    parallel_for(rows, !use_reference() && rows * cols > kParallelGrain, row_fn);
}

// A row whose largest entry is −∞ (every entry −∞: fully masked, or NaN): zeros, with each NaN
// kept where it was, so a poisoned score is never hidden.
template <class T>
void masked_row(const T* x, T* y, int64_t cols) {
    for (int64_t j = 0; j < cols; ++j) y[j] = std::isnan(x[j]) ? x[j] : 0;
}

// What softmax_row writes: the weights, or their logarithms (log_softmax).
enum class RowOutput { weights, log_weights };

// y_j = exp(x_j − m) / Σ_k exp(x_k − m), m = max_k x_k (subtracting m keeps exp from overflowing).
// With log_weights: y_j = x_j − m − log Σ_k exp(x_k − m). The reference: what a student reads.
template <class T>
void softmax_row(const T* x, T* y, int64_t cols, RowOutput output) {
    const bool log_output = output == RowOutput::log_weights;
    T row_max = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < cols; ++j) row_max = std::max(row_max, x[j]);  // skips NaN
    if (row_max == -std::numeric_limits<T>::infinity()) {
        masked_row(x, y, cols);
        return;
    }
    T total = 0;
    for (int64_t j = 0; j < cols; ++j) total += std::exp(x[j] - row_max);
    if (log_output) {
        const T log_total = std::log(total);
        for (int64_t j = 0; j < cols; ++j) y[j] = x[j] - row_max - log_total;
    } else {
        const T inverse = T(1) / total;
        for (int64_t j = 0; j < cols; ++j) y[j] = std::exp(x[j] - row_max) * inverse;
    }
}

// m = max_j x_j (skipping NaN), or, for a row whose max is −∞, nothing once its masked output is
// written. Inlined always: a call per row is a fixed cost that a short row's vector work does not hide.
template <class T>
[[gnu::always_inline]] inline std::optional<T> row_max_unless_masked(const T* x, T* y, int64_t cols) {
    if (const T row_max = vector_row_max(x, cols); row_max != -std::numeric_limits<T>::infinity()) return row_max;
    masked_row(x, y, cols);
    return std::nullopt;
}

// The same softmax, fast: each exp taken once (stored in y, then scaled) with the vectorisable
// vector_exp.
template <class T>
void softmax_row_fast(const T* x, T* y, int64_t cols) {
    const std::optional<T> row_max = row_max_unless_masked(x, y, cols);
    if (!row_max) return;
    const T m = *row_max;
    T total = 0;
#pragma omp simd reduction(+ : total)
    for (int64_t j = 0; j < cols; ++j) {
        y[j] = vector_exp(x[j] - m);
        total += y[j];
    }
    const T inverse = T(1) / total;
    for (int64_t j = 0; j < cols; ++j) y[j] *= inverse;
}

// The same log-softmax, fast: y_j = x_j − m − log Σ_k exp(x_k − m), the sum with vector_exp (std::exp
// is a libm call, so its loop runs one value at a time; vector_exp's vectorises).
template <class T>
void log_softmax_row_fast(const T* x, T* y, int64_t cols) {
    const std::optional<T> row_max = row_max_unless_masked(x, y, cols);
    if (!row_max) return;
    const T m = *row_max;
    T total = 0;
#pragma omp simd reduction(+ : total)
    for (int64_t j = 0; j < cols; ++j) total += vector_exp(x[j] - m);
    const T log_total = std::log(total);
#pragma omp simd
    for (int64_t j = 0; j < cols; ++j) y[j] = x[j] - m - log_total;
}

// y = log_softmax(x), so softmax(x) = exp(y):  dx_j = dy_j − exp(y_j)·Σ_k dy_k.
// A fully masked row was output as all zeros and gets no gradient. `exp_of` is std::exp for the
// reference and vector_exp for the fast path.
template <class T, class Exp>
void log_softmax_backward_row(const T* y, const T* dy, T* dx, int64_t cols, Exp exp_of) {
    bool masked = true;
    for (int64_t j = 0; j < cols && masked; ++j) masked = y[j] == 0;
    if (masked) {
        std::fill_n(dx, cols, T(0));
        return;
    }
    T dy_total = 0;
#pragma omp simd reduction(+ : dy_total)
    for (int64_t j = 0; j < cols; ++j) dy_total += dy[j];
#pragma omp simd
    for (int64_t j = 0; j < cols; ++j) dx[j] = dy[j] - exp_of(y[j]) * dy_total;
}

}  // namespace

template <class T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols) {
    if (use_reference())
        for_each_row(rows, cols, [&](int64_t r) { softmax_row(x + r * cols, y + r * cols, cols, RowOutput::weights); });
    else
        for_each_row(rows, cols, [&](int64_t r) { softmax_row_fast(x + r * cols, y + r * cols, cols); });
}

template <class T>
void log_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols) {
    if (use_reference())
        for_each_row(rows, cols, [&](int64_t r) { softmax_row(x + r * cols, y + r * cols, cols, RowOutput::log_weights); });
    else
        for_each_row(rows, cols, [&](int64_t r) { log_softmax_row_fast(x + r * cols, y + r * cols, cols); });
}

// dx_j = y_j·(dy_j − Σ_k dy_k·y_k), row by row: the softmax Jacobian diag(y) − y·yᵀ applied to dy.
template <class T>
void softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols) {
    // BEGIN SOLUTION A1.1
    for_each_row(rows, cols, [&](int64_t r) {
        const T* y_row = y + r * cols;
        const T* dy_row = dy + r * cols;
        T dot = 0;
        for (int64_t j = 0; j < cols; ++j) dot += dy_row[j] * y_row[j];
        for (int64_t j = 0; j < cols; ++j) dx[r * cols + j] = y_row[j] * (dy_row[j] - dot);
    });
    // END SOLUTION
}

template <class T>
void log_softmax_backward_rows(const T* y, const T* dy, T* dx, int64_t rows, int64_t cols) {
    const auto rows_with = [&](auto exp_of) {
        for_each_row(rows, cols, [&](int64_t r) { log_softmax_backward_row(y + r * cols, dy + r * cols, dx + r * cols, cols, exp_of); });
    };
    if (use_reference()) rows_with([](T v) { return std::exp(v); });
    else rows_with([](T v) { return vector_exp(v); });
}

#define TF_SOFTMAX_INSTANTIATE(T)                                              \
    template void softmax_rows<T>(const T*, T*, int64_t, int64_t);             \
    template void log_softmax_rows<T>(const T*, T*, int64_t, int64_t);         \
    template void softmax_backward_rows<T>(const T*, const T*, T*, int64_t, int64_t); \
    template void log_softmax_backward_rows<T>(const T*, const T*, T*, int64_t, int64_t);
TF_SOFTMAX_INSTANTIATE(float)
TF_SOFTMAX_INSTANTIATE(double)
#undef TF_SOFTMAX_INSTANTIATE

}  // namespace tf::kernels
