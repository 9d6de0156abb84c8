// Sum and max along an axis: a plain triple loop for reference, and a threaded version that walks
// memory in order (k outside, i inside) so the inner loop is contiguous.
#include "autograd/kernels/reduce.h"

#include <algorithm>

#include "autograd/kernels/mode.h"

namespace tf::kernels {

template <class T>
void sum_axis(const T* x, T* out, const AxisView& view) {
    // Plain copies, not a structured binding: OpenMP regions may not capture those before clang 16.
    const int64_t outer = view.outer, n = view.n, inner = view.inner;
    if (use_reference()) {
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                T total = 0;
                for (int64_t k = 0; k < n; ++k) total += x[(o * n + k) * inner + i];
                out[o * inner + i] = total;
            }
        return;
    }
    // Split the (outer × inner-block) grid over threads; each block accumulates rows in order.
    constexpr int64_t kBlock = 256;
    const int64_t blocks = (inner + kBlock - 1) / kBlock;
    parallel_for(outer * blocks, outer * n * inner > kParallelGrain, [&](int64_t task) {
        const int64_t o = task / blocks;
        const int64_t begin = (task % blocks) * kBlock;
        const int64_t end = std::min(inner, begin + kBlock);
        T* out_row = out + o * inner;
        for (int64_t i = begin; i < end; ++i) out_row[i] = 0;
        for (int64_t k = 0; k < n; ++k) {
            const T* x_row = x + (o * n + k) * inner;
            for (int64_t i = begin; i < end; ++i) out_row[i] += x_row[i];
        }
    });
}

template <class T>
void max_axis(const T* x, T* out, int64_t* argmax, const AxisView& view) {
    const int64_t outer = view.outer, n = view.n, inner = view.inner;
    const bool parallel = !use_reference() && outer * n * inner > kParallelGrain;
    parallel_for(outer * inner, parallel, [&](int64_t task) {
        const int64_t o = task / inner, i = task % inner;
        int64_t best = 0;
        for (int64_t k = 1; k < n; ++k)
            if (x[(o * n + k) * inner + i] > x[(o * n + best) * inner + i]) best = k;
        out[task] = x[(o * n + best) * inner + i];
        argmax[task] = best;
    });
}

template void sum_axis<float>(const float*, float*, const AxisView&);
template void sum_axis<double>(const double*, double*, const AxisView&);
template void max_axis<float>(const float*, float*, int64_t*, const AxisView&);
template void max_axis<double>(const double*, double*, int64_t*, const AxisView&);

}  // namespace tf::kernels
