// Sums, means and maxima over axes.
#include <algorithm>

#include "autograd/error.h"
#include "autograd/kernels/elementwise.h"
#include "autograd/kernels/reduce.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

// Sorted, unique, non-negative axes; throws naming the op if one is out of range.
std::vector<int64_t> normalize_axes(const std::vector<int64_t>& axes, int64_t rank, const char* op) {
    std::vector<int64_t> result;
    for (int64_t axis : axes) result.push_back(normalize_axis(axis, rank, op));
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
}

Shape keepdim_shape(const Shape& shape, const std::vector<int64_t>& axes) {
    Shape out = shape;
    for (int64_t axis : axes) out[axis] = 1;
    return out;
}

Shape dropped_shape(const Shape& shape, const std::vector<int64_t>& axes) {
    Shape out;
    for (int64_t axis = 0; axis < static_cast<int64_t>(shape.size()); ++axis)
        if (!std::binary_search(axes.begin(), axes.end(), axis)) out.push_back(shape[axis]);
    return out;
}

kernels::AxisView axis_view(const Shape& shape, int64_t axis) {
    kernels::AxisView view;
    for (int64_t d = 0; d < axis; ++d) view.outer *= shape[d];
    view.n = shape[axis];
    for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d) view.inner *= shape[d];
    return view;
}

// Σ over one axis, keeping it as size 1 (no tape).
Tensor sum_one_axis(const Tensor& x, int64_t axis) {
    Shape out_shape = x.shape();
    out_shape[axis] = 1;
    Tensor out(out_shape, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::sum_axis(x.data<T>(), out.data<T>(), axis_view(x.shape(), axis));
    });
    return out;
}

}  // namespace

// ── sum ──  y = Σ_{axes} x      dx = dy broadcast back over the summed axes
Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
    const auto reduced = normalize_axes(axes, x.dim(), "sum");
    Tensor y = x.view(x.shape());   // never x's own handle: the tape marks its output as made by an op
    // Adjacent reduced axes are merged into one pass: (B, T, C) summed over {0, 1} reads as (B·T, C).
    for (std::size_t i = 0; i < reduced.size();) {
        std::size_t j = i + 1;
        while (j < reduced.size() && reduced[j] == reduced[j - 1] + 1) ++j;
        Shape merged(y.shape().begin(), y.shape().begin() + reduced[i]);
        merged.push_back(numel(Shape(y.shape().begin() + reduced[i], y.shape().begin() + reduced[j - 1] + 1)));
        merged.insert(merged.end(), y.shape().begin() + reduced[j - 1] + 1, y.shape().end());
        y = sum_one_axis(y.view(merged), reduced[i]);
        Shape kept(y.shape().begin(), y.shape().begin() + reduced[i]);
        kept.insert(kept.end(), static_cast<std::size_t>(reduced[j - 1] - reduced[i] + 1), 1);
        kept.insert(kept.end(), y.shape().begin() + reduced[i] + 1, y.shape().end());
        y = y.view(kept);
        i = j;
    }
    if (!keepdim) y = y.view(dropped_shape(x.shape(), reduced));
    const Shape x_shape = x.shape();
    const Shape kept_shape = keepdim_shape(x_shape, reduced);
    return record("sum", {x}, y, [x_shape, kept_shape](const Tensor& dy) -> Grads {
        return {kernels::expand(dy.view(kept_shape), x_shape)};
    });
}

Tensor sum(const Tensor& x) {
    std::vector<int64_t> all(static_cast<std::size_t>(x.dim()));
    for (int64_t axis = 0; axis < x.dim(); ++axis) all[axis] = axis;
    return sum(x, all, false);
}

// ── mean ──  y = (1/n) Σ_{axes} x   (a composite: sum, then mul_scalar)
Tensor mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
    int64_t count = 1;
    for (int64_t axis : normalize_axes(axes, x.dim(), "mean")) count *= x.shape()[axis];
    if (count == 0) throw ShapeError("mean: reducing " + to_string(x.shape()) + " over an empty axis");
    return mul_scalar(sum(x, axes, keepdim), 1.0 / static_cast<double>(count));
}

Tensor mean(const Tensor& x) {
    if (x.numel() == 0) throw ShapeError("mean: tensor " + to_string(x.shape()) + " is empty");
    return mul_scalar(sum(x), 1.0 / static_cast<double>(x.numel()));
}

// ── max ──  y = max_{axis} x    dx = dy at the (first) position of the maximum, 0 elsewhere
// Several axes are reduced one at a time, each its own tape entry.
namespace {
Tensor max_one_axis(const Tensor& x, int64_t axis) {
    if (x.shape()[axis] == 0) throw ShapeError("max: axis " + std::to_string(axis) + " of " + to_string(x.shape()) + " is empty");
    const kernels::AxisView view = axis_view(x.shape(), axis);
    Shape out_shape = x.shape();
    out_shape[axis] = 1;
    Tensor y(out_shape, x.dtype());
    auto argmax = std::make_shared<std::vector<int64_t>>(static_cast<std::size_t>(view.outer * view.inner));
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::max_axis(x.data<T>(), y.data<T>(), argmax->data(), view);
    });
    const Shape x_shape = x.shape();
    return record("max", {x}, y, [x_shape, view, argmax](const Tensor& dy) -> Grads {
        Tensor dx = Tensor::zeros(x_shape, dy.dtype());
        dispatch(dy.dtype(), [&](auto zero) {
            using T = decltype(zero);
            const T* g = dy.data<T>();
            T* out = dx.data<T>();
            for (int64_t o = 0; o < view.outer; ++o)
                for (int64_t i = 0; i < view.inner; ++i)
                    out[(o * view.n + (*argmax)[o * view.inner + i]) * view.inner + i] = g[o * view.inner + i];
        });
        return {dx};
    });
}
}  // namespace

Tensor max(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
    const auto reduced = normalize_axes(axes, x.dim(), "max");
    Tensor y = x;
    for (int64_t axis : reduced) y = max_one_axis(y, axis);
    return keepdim ? y : reshape(y, dropped_shape(x.shape(), reduced));
}

IndexTensor argmax(const Tensor& x) {
    if (x.dim() == 0 || x.shape().back() == 0) throw ShapeError("argmax: tensor " + to_string(x.shape()) + " has no last axis to search");
    const kernels::AxisView view = axis_view(x.shape(), x.dim() - 1);
    IndexTensor result(std::vector<int64_t>(static_cast<std::size_t>(view.outer)),
                       Shape(x.shape().begin(), x.shape().end() - 1));
    Tensor values({view.outer}, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::max_axis(x.data<T>(), values.data<T>(), result.values.data(), view);
    });
    return result;
}

}  // namespace tf
