// The permute copy: the reference walks every output element and recomputes its source offset;
// the fast path does that once per output row and then strides through the source.
#include "autograd/kernels/permute.h"

#include "autograd/kernels/mode.h"

namespace tf::kernels {

namespace {
template <class T>
void permute_rows(const T* x, T* out, const Shape& out_shape, const std::vector<int64_t>& source_strides,
                  bool reference) {
    const int64_t rank = static_cast<int64_t>(out_shape.size());
    const int64_t n = numel(out_shape);
    const int64_t cols = reference || rank == 0 ? 1 : out_shape[rank - 1];
    const int64_t col_stride = reference || rank == 0 ? 0 : source_strides[rank - 1];
    const int64_t row_axes = reference ? rank : rank - 1;  // axes walked per row
    const int64_t rows = cols ? n / cols : 0;
    parallel_for(rows, !reference && n > kParallelGrain, [&](int64_t row) {
        int64_t remaining = row, source = 0;
        for (int64_t axis = row_axes - 1; axis >= 0; --axis) {
            source += (remaining % out_shape[axis]) * source_strides[axis];
            remaining /= out_shape[axis];
        }
        for (int64_t col = 0; col < cols; ++col) out[row * cols + col] = x[source + col * col_stride];
    });
}
}  // namespace

Tensor permute_copy(const Tensor& x, const std::vector<int64_t>& perm) {
    const std::vector<int64_t> x_strides = contiguous_strides(x.shape());
    Shape out_shape(perm.size());
    std::vector<int64_t> source_strides(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d) {
        out_shape[d] = x.shape()[perm[d]];
        source_strides[d] = x_strides[perm[d]];
    }
    Tensor out(out_shape, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        permute_rows(x.data<T>(), out.data<T>(), out_shape, source_strides, use_reference());
    });
    return out;
}

}  // namespace tf::kernels
