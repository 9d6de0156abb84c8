// Ops that move elements without arithmetic: reshape (free: same data), transpose/permute
// (a copy into the new order), concat, slice and split. Their backward moves the gradient back.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "autograd/error.h"
#include "autograd/kernels/permute.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

// ── reshape ──  same elements, new shape (no copy)      dx = dy reshaped back
Tensor reshape(const Tensor& x, Shape shape) {
    int64_t inferred_axis = -1, known = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] < -1) throw ShapeError("reshape: " + to_string(shape) + " has a negative size other than -1");
        if (shape[i] == -1) {
            if (inferred_axis != -1) throw ShapeError("reshape: " + to_string(shape) + " has more than one -1");
            inferred_axis = static_cast<int64_t>(i);
        } else {
            known *= shape[i];
        }
    }
    if (inferred_axis != -1 && known != 0 && x.numel() % known == 0) shape[inferred_axis] = x.numel() / known;
    if (numel(shape) != x.numel() || (inferred_axis != -1 && shape[inferred_axis] == -1))
        throw ShapeError("reshape: cannot reshape " + to_string(x.shape()) + " (" + std::to_string(x.numel()) +
                         " elements) to " + to_string(shape));
    const Shape x_shape = x.shape();
    return record("reshape", {x}, x.view(shape), [x_shape](const Tensor& dy) -> Grads { return {dy.view(x_shape)}; });
}

// ── permute ──  out axis d is input axis perm[d]        dx = permute(dy, perm⁻¹)
Tensor permute(const Tensor& x, const std::vector<int64_t>& perm) {
    if (static_cast<int64_t>(perm.size()) != x.dim())
        throw ShapeError("permute: " + std::to_string(perm.size()) + " axes given for a tensor of shape " +
                         to_string(x.shape()));
    std::vector<int64_t> normalized;
    normalized.reserve(perm.size());
    for (int64_t axis : perm) {
        const int64_t a = normalize_axis(axis, x.dim(), "permute");
        if (std::find(normalized.begin(), normalized.end(), a) != normalized.end())
            throw ShapeError("permute: axis " + std::to_string(axis) + " appears twice");
        normalized.push_back(a);
    }
    // Axes of size 1 hold no order: when the others keep theirs, every element stays where it was
    // and the permuted tensor is the same data under the new shape (a decoding step's head split).
    int64_t last_sized_axis = -1;
    bool keeps_order = true;
    for (int64_t axis : normalized)
        if (x.size(axis) != 1) keeps_order = keeps_order && axis > last_sized_axis, last_sized_axis = axis;
    if (keeps_order) {
        Shape permuted;
        permuted.reserve(normalized.size());
        for (int64_t axis : normalized) permuted.push_back(x.size(axis));
        const Shape x_shape = x.shape();
        return record("permute", {x}, x.view(permuted), [x_shape](const Tensor& dy) -> Grads { return {dy.view(x_shape)}; });
    }
    std::vector<int64_t> inverse(normalized.size());
    for (std::size_t d = 0; d < normalized.size(); ++d) inverse[normalized[d]] = static_cast<int64_t>(d);
    return record("permute", {x}, kernels::permute_copy(x, normalized),
                  [inverse](const Tensor& dy) -> Grads { return {kernels::permute_copy(dy, inverse)}; });
}

// ── transpose ──  swaps two axes                        dx = transpose(dy) (the same swap)
Tensor transpose(const Tensor& x, int64_t axis0, int64_t axis1) {
    std::vector<int64_t> perm(static_cast<std::size_t>(x.dim()));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[normalize_axis(axis0, x.dim(), "transpose")], perm[normalize_axis(axis1, x.dim(), "transpose")]);
    return record("transpose", {x}, kernels::permute_copy(x, perm),
                  [perm](const Tensor& dy) -> Grads { return {kernels::permute_copy(dy, perm)}; });
}

namespace {
// Copies a block of `rows` rows: each row is `count` elements of source (row stride source_stride)
// to target (row stride target_stride). Viewing a tensor as (outer, axis·inner) makes concat and
// slice such block copies.
void copy_rows(const void* source, int64_t source_stride, void* target, int64_t target_stride, int64_t rows,
               int64_t count, std::size_t element_size) {
    for (int64_t row = 0; row < rows; ++row)
        std::memcpy(static_cast<char*>(target) + row * target_stride * element_size,
                    static_cast<const char*>(source) + row * source_stride * element_size, count * element_size);
}

int64_t outer_size(const Shape& shape, int64_t axis) {
    return numel(Shape(shape.begin(), shape.begin() + axis));
}
int64_t inner_size(const Shape& shape, int64_t axis) {
    return numel(Shape(shape.begin() + axis + 1, shape.end()));
}
}  // namespace

// ── concat ──  parts laid end to end along `axis`       d part_i = the matching slice of dy
Tensor concat(const std::vector<Tensor>& parts, int64_t axis) {
    if (parts.empty()) throw ShapeError("concat: no tensors given");
    const Tensor& first = parts.front();
    axis = normalize_axis(axis, first.dim(), "concat");
    Shape out_shape = first.shape();
    out_shape[axis] = 0;
    std::vector<int64_t> sizes;
    for (const Tensor& part : parts) {
        Shape expected = first.shape(), got = part.shape();
        if (part.dim() == first.dim()) expected[axis] = got[axis];
        if (got != expected || part.dtype() != first.dtype())
            throw ShapeError("concat: " + to_string(first.shape()) + " " + dtype_name(first.dtype()) + " and " +
                             to_string(part.shape()) + " " + dtype_name(part.dtype()) +
                             " differ outside axis " + std::to_string(axis));
        sizes.push_back(part.shape()[axis]);
        out_shape[axis] += part.shape()[axis];
    }
    Tensor out(out_shape, first.dtype());
    const int64_t outer = outer_size(out_shape, axis), inner = inner_size(out_shape, axis);
    int64_t offset = 0;
    for (const Tensor& part : parts) {
        const int64_t width = part.shape()[axis] * inner;
        copy_rows(part.raw_data(), width, static_cast<char*>(out.raw_data()) + offset * dtype_size(out.dtype()),
                  out_shape[axis] * inner, outer, width, dtype_size(out.dtype()));
        offset += width;
    }
    return record("concat", parts, out, [sizes, axis](const Tensor& dy) -> Grads { return split(dy, sizes, axis); });
}

// ── slice ──  x[start:end] along `axis`                  dx = dy placed back into zeros
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end) {
    axis = normalize_axis(axis, x.dim(), "slice");
    if (start < 0 || end > x.shape()[axis] || start > end)
        throw ShapeError("slice: [" + std::to_string(start) + ", " + std::to_string(end) + ") is out of range for axis " +
                         std::to_string(axis) + " of " + to_string(x.shape()));
    Shape out_shape = x.shape();
    out_shape[axis] = end - start;
    Tensor out(out_shape, x.dtype());
    const int64_t outer = outer_size(x.shape(), axis), inner = inner_size(x.shape(), axis);
    const std::size_t element = dtype_size(x.dtype());
    copy_rows(static_cast<const char*>(x.raw_data()) + start * inner * element, x.shape()[axis] * inner, out.raw_data(),
              (end - start) * inner, outer, (end - start) * inner, element);
    const Shape x_shape = x.shape();
    return record("slice", {x}, out, [x_shape, axis, start, end, outer, inner](const Tensor& dy) -> Grads {
        Tensor dx = Tensor::zeros(x_shape, dy.dtype());
        const std::size_t element = dtype_size(dy.dtype());
        copy_rows(dy.raw_data(), (end - start) * inner, static_cast<char*>(dx.raw_data()) + start * inner * element,
                  x_shape[axis] * inner, outer, (end - start) * inner, element);
        return {dx};
    });
}

// split: consecutive slices whose sizes add up to the axis length (a composite of slice).
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
    axis = normalize_axis(axis, x.dim(), "split");
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != x.shape()[axis])
        throw ShapeError("split: sizes add up to " + std::to_string(std::accumulate(sizes.begin(), sizes.end(), int64_t{0})) +
                         " but axis " + std::to_string(axis) + " of " + to_string(x.shape()) + " has " +
                         std::to_string(x.shape()[axis]));
    std::vector<Tensor> parts;
    int64_t start = 0;
    for (int64_t size : sizes) {
        parts.push_back(slice(x, axis, start, start + size));
        start += size;
    }
    return parts;
}

}  // namespace tf
