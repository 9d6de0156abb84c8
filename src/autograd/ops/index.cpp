// Picking elements by integer index: index_select (embeddings are row lookups), gather along the
// last axis. Backward scatters the gradient back, adding where an index was picked twice.
#include <cstring>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {
void check_index(int64_t index, int64_t size, const char* op, const Shape& shape) {
    if (index < 0 || index >= size)
        throw ShapeError(std::string(op) + ": index " + std::to_string(index) + " is out of range [0, " +
                         std::to_string(size) + ") for " + to_string(shape));
}
}  // namespace

// ── index_select ──  out[o, i, r] = x[o, indices[i], r]   (x read as (outer, n, inner) around `axis`)
// Backward (scatter-add): dx[o, indices[i], r] += dy[o, i, r]
Tensor index_select(const Tensor& x, int64_t axis, const IndexTensor& indices) {
    axis = normalize_axis(axis, x.dim(), "index_select");
    if (indices.shape.size() != 1)
        throw ShapeError("index_select: indices must be 1-D, got " + to_string(indices.shape));
    const int64_t n = x.shape()[axis];
    for (int64_t index : indices.values) check_index(index, n, "index_select", x.shape());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
    for (int64_t d = axis + 1; d < x.dim(); ++d) inner *= x.shape()[d];
    Shape out_shape = x.shape();
    out_shape[axis] = indices.numel();
    Tensor out(out_shape, x.dtype());
    const std::size_t row_bytes = static_cast<std::size_t>(inner) * dtype_size(x.dtype());
    const auto* source = static_cast<const char*>(x.raw_data());
    auto* target = static_cast<char*>(out.raw_data());
    const int64_t picked = indices.numel();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < picked; ++i)
            std::memcpy(target + (o * picked + i) * row_bytes, source + (o * n + indices.values[i]) * row_bytes, row_bytes);
    const Shape x_shape = x.shape();
    return record("index_select", {x}, out, [x_shape, indices, outer, n, inner](const Tensor& dy) -> Grads {
        Tensor dx = Tensor::zeros(x_shape, dy.dtype());
        dispatch(dy.dtype(), [&](auto zero) {
            using T = decltype(zero);
            const T* g = dy.data<T>();
            T* out_grad = dx.data<T>();
            const int64_t picked = indices.numel();
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t i = 0; i < picked; ++i) {
                    T* row = out_grad + (o * n + indices.values[i]) * inner;
                    const T* g_row = g + (o * picked + i) * inner;
                    for (int64_t r = 0; r < inner; ++r) row[r] += g_row[r];
                }
        });
        return {dx};
    });
}

// embedding: weight (V, C), ids (…) → (…, C): row ids[…] of the table (index_select + reshape).
Tensor embedding(const Tensor& weight, const IndexTensor& ids) {
    if (weight.dim() != 2) throw ShapeError("embedding: weight must be (V, C), got " + to_string(weight.shape()));
    Shape out_shape = ids.shape;
    out_shape.push_back(weight.size(1));
    return reshape(index_select(weight, 0, IndexTensor(ids.values)), out_shape);
}

// ── gather ──  out[…, j] = x[…, indices[…, j]]             dx[…, indices[…, j]] += dy[…, j]
Tensor gather(const Tensor& x, const IndexTensor& indices) {
    if (x.dim() == 0 || indices.shape.size() != x.shape().size() ||
        !std::equal(x.shape().begin(), x.shape().end() - 1, indices.shape.begin()))
        throw ShapeError("gather: indices " + to_string(indices.shape) + " must match " + to_string(x.shape()) +
                         " on every axis but the last");
    const int64_t n = x.size(-1);
    const int64_t picked = indices.shape.back();
    const int64_t rows = picked ? indices.numel() / picked : 0;
    for (int64_t index : indices.values) check_index(index, n, "gather", x.shape());
    Tensor out(indices.shape, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < picked; ++j)
                out.data<T>()[r * picked + j] = x.data<T>()[r * n + indices.values[r * picked + j]];
    });
    const Shape x_shape = x.shape();
    return record("gather", {x}, out, [x_shape, indices, rows, n, picked](const Tensor& dy) -> Grads {
        Tensor dx = Tensor::zeros(x_shape, dy.dtype());
        dispatch(dy.dtype(), [&](auto zero) {
            using T = decltype(zero);
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t j = 0; j < picked; ++j)
                    dx.data<T>()[r * n + indices.values[r * picked + j]] += dy.data<T>()[r * picked + j];
        });
        return {dx};
    });
}

}  // namespace tf
