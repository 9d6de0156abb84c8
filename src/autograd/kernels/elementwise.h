// Elementwise kernels: map (one input) and zip (two inputs with NumPy broadcasting), generic over
// the function applied, so each op passes a one-line lambda: zip(a, b, [](auto x, auto y) { return x + y; }).
#pragma once
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/tensor.h"

namespace tf::kernels {

// out[i] = fn(x[i]); the reference path applies reference_fn, the fast path fast_fn (the same
// function, written so the loop vectorises: see vector_math.h).
template <class ReferenceFn, class FastFn>
Tensor map(const Tensor& x, ReferenceFn reference_fn, FastFn fast_fn) {
    Tensor out(x.shape(), x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T* in = x.data<T>();
        T* result = out.data<T>();
        const int64_t n = x.numel();
        if (use_reference()) {
            for (int64_t i = 0; i < n; ++i) result[i] = static_cast<T>(reference_fn(in[i]));
        } else {
            parallel_for(n, n > kParallelGrain, [&](int64_t i) { result[i] = static_cast<T>(fast_fn(in[i])); });
        }
    });
    return out;
}

// out[i] = fn(x[i])
template <class Fn>
Tensor map(const Tensor& x, Fn fn) {
    return map(x, fn, fn);
}

// Strides for reading `shape` as if it had `out_shape` (right-aligned): 0 on broadcast dimensions.
inline std::vector<int64_t> broadcast_strides(const Shape& shape, const Shape& out_shape) {
    std::vector<int64_t> strides(out_shape.size(), 0);
    const std::vector<int64_t> own = contiguous_strides(shape);
    const std::size_t offset = out_shape.size() - shape.size();
    for (std::size_t i = 0; i < shape.size(); ++i)
        strides[offset + i] = shape[i] == 1 ? 0 : own[i];
    return strides;
}

// Reference: for each output element, recover its multi-index and read the input elements it
// came from (a broadcast dimension always reads index 0).
template <class T, class Fn>
void zip_reference(const T* a, const std::vector<int64_t>& a_strides, const T* b,
                   const std::vector<int64_t>& b_strides, T* out, const Shape& out_shape, Fn fn) {
    const int64_t n = numel(out_shape);
    for (int64_t i = 0; i < n; ++i) {
        int64_t remaining = i, a_offset = 0, b_offset = 0;
        for (int64_t axis = static_cast<int64_t>(out_shape.size()) - 1; axis >= 0; --axis) {
            const int64_t index = remaining % out_shape[axis];
            remaining /= out_shape[axis];
            a_offset += index * a_strides[axis];
            b_offset += index * b_strides[axis];
        }
        out[i] = static_cast<T>(fn(a[a_offset], b[b_offset]));
    }
}

// One output row: out[c] = fn(a[c·a_stride], b[c·b_stride]), each stride 0 (broadcast) or 1. A
// loop per stride pair, because the vectoriser cannot use a stride it only knows at run time.
template <class T, class Fn>
void zip_row(const T* a, int64_t a_stride, const T* b, int64_t b_stride, T* out, int64_t cols, Fn fn) {
    if (a_stride == 1 && b_stride == 1) {
        for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<T>(fn(a[c], b[c]));
    } else if (a_stride == 1) {
        for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<T>(fn(a[c], b[0]));
    } else if (b_stride == 1) {
        for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<T>(fn(a[0], b[c]));
    } else {
        for (int64_t c = 0; c < cols; ++c) out[c] = static_cast<T>(fn(a[0], b[0]));
    }
}

// Fast, shapes equal: one flat loop.
template <class T, class Fn>
void zip_same_shape(const T* a, const T* b, T* out, int64_t n, Fn fn) {
    parallel_for(n, n > kParallelGrain, [&](int64_t i) { out[i] = static_cast<T>(fn(a[i], b[i])); });
}

// Fast, broadcasting: rows of the last dimension, where the inner loop reads with a fixed stride
// (0 or 1) and vectorises, and rows go to threads.
template <class T, class Fn>
void zip_fast(const T* a, const std::vector<int64_t>& a_strides, const T* b,
              const std::vector<int64_t>& b_strides, T* out, const Shape& out_shape, Fn fn) {
    const int64_t n = numel(out_shape);
    const int64_t rank = static_cast<int64_t>(out_shape.size());
    const int64_t cols = rank ? out_shape[rank - 1] : 1;
    const int64_t rows = cols ? n / cols : 0;
    const int64_t a_col_stride = rank ? a_strides[rank - 1] : 0;
    const int64_t b_col_stride = rank ? b_strides[rank - 1] : 0;
    parallel_for(rows, n > kParallelGrain, [&](int64_t row) {
        int64_t remaining = row, a_offset = 0, b_offset = 0;
        for (int64_t axis = rank - 2; axis >= 0; --axis) {
            const int64_t index = remaining % out_shape[axis];
            remaining /= out_shape[axis];
            a_offset += index * a_strides[axis];
            b_offset += index * b_strides[axis];
        }
        zip_row(a + a_offset, a_col_stride, b + b_offset, b_col_stride, out + row * cols, cols, fn);
    });
}

// out = fn(a, b) elementwise, broadcasting a and b to a common shape; the reference path applies
// reference_fn, the fast path fast_fn (the same function, vectorisable). `op` names the caller in errors.
template <class ReferenceFn, class FastFn>
Tensor zip(const Tensor& a, const Tensor& b, ReferenceFn reference_fn, FastFn fast_fn, const char* op) {
    if (a.dtype() != b.dtype())
        throw ValueError(std::string(op) + ": dtypes differ (" + dtype_name(a.dtype()) + " and " +
                         dtype_name(b.dtype()) + ")");
    if (a.shape() == b.shape() && !use_reference()) {  // no broadcasting: no shapes or strides to work out
        Tensor out(a.shape(), a.dtype());
        dispatch(a.dtype(), [&](auto zero) {
            using T = decltype(zero);
            zip_same_shape(a.data<T>(), b.data<T>(), out.data<T>(), out.numel(), fast_fn);
        });
        return out;
    }
    const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), op);
    Tensor out(out_shape, a.dtype());
    const auto a_strides = broadcast_strides(a.shape(), out_shape);
    const auto b_strides = broadcast_strides(b.shape(), out_shape);
    dispatch(a.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (use_reference())
            zip_reference(a.data<T>(), a_strides, b.data<T>(), b_strides, out.data<T>(), out_shape, reference_fn);
        else
            zip_fast(a.data<T>(), a_strides, b.data<T>(), b_strides, out.data<T>(), out_shape, fast_fn);
    });
    return out;
}

// out = fn(a, b) elementwise, broadcasting a and b to a common shape. `op` names the caller in errors.
template <class Fn>
Tensor zip(const Tensor& a, const Tensor& b, Fn fn, const char* op = "zip") {
    return zip(a, b, fn, fn, op);
}

}  // namespace tf::kernels

namespace tf::kernels {

// acc += x in place (same shape and dtype): how the tape sums a gradient into one it owns alone.
inline void add_into(Tensor& acc, const Tensor& x) {
    if (acc.shape() != x.shape() || acc.dtype() != x.dtype())
        throw ShapeError("add_into: " + to_string(acc.shape()) + " " + dtype_name(acc.dtype()) + " += " +
                         to_string(x.shape()) + " " + dtype_name(x.dtype()));
    dispatch(acc.dtype(), [&](auto zero) {
        using T = decltype(zero);
        T* out = acc.data<T>();
        const T* in = x.data<T>();
        const int64_t n = acc.numel();
        parallel_for(n, !use_reference() && n > kParallelSumGrain, [&](int64_t i) { out[i] += in[i]; });
    });
}

// Repeats x along its broadcast (size-1 or missing leading) dimensions to fill `shape`.
inline Tensor expand(const Tensor& x, const Shape& shape) {
    if (x.shape() == shape) return x;
    broadcast_shapes(x.shape(), shape, "expand");
    Tensor out(shape, x.dtype());
    const auto strides = broadcast_strides(x.shape(), shape);
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const auto first = [](T value, T) { return value; };
        if (use_reference()) zip_reference(x.data<T>(), strides, x.data<T>(), strides, out.data<T>(), shape, first);
        else zip_fast(x.data<T>(), strides, x.data<T>(), strides, out.data<T>(), shape, first);
    });
    return out;
}

}  // namespace tf::kernels
