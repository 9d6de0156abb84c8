// Sum and max along an axis: a plain triple loop for reference, and a threaded version that walks
// memory in order (k outside, i inside) so the inner loop is contiguous. And a ReLU's backward
// with its bias gradient's column sums, in one pass, also rounding to bf16 on the way.
#include "autograd/kernels/reduce.h"

#include <algorithm>
#include <vector>

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

namespace {
// column_sums_j = Σ_thread partial[thread][j], added in thread order, so the result does not
// depend on timing: the last step of the row-block column sums below.
template <class T>
void add_partial_sums(const std::vector<T>& partial, int threads, T* column_sums, int64_t cols) {
    for (int64_t j = 0; j < cols; ++j) {
        T total = 0;
        for (int thread = 0; thread < threads; ++thread) total += partial[thread * cols + j];
        column_sums[j] = total;
    }
}
}  // namespace

// Rows split into one block per thread, each summing its columns into its own partial row; the
// partials are added after (add_partial_sums).
template <class T>
void relu_backward_column_sums(const T* y, const T* dy, T* g, T* column_sums, int64_t rows, int64_t cols) {
    const int threads = !use_reference() && rows * cols > kParallelGrain ? std::min<int64_t>(num_threads(), rows) : 1;
    std::vector<T> partial(static_cast<std::size_t>(threads * cols), T(0));
    parallel_for(threads, threads > 1, [&](int64_t thread) {
        // The pointers copied into locals: read through the captured references inside the
        // OpenMP region, GCC 12 reloaded them for every element (they might alias what the
        // loop writes) and left the loop scalar.
        const T* y_rows = y;
        const T* dy_rows = dy;
        T* g_rows = g;
        T* sums = partial.data() + thread * cols;
        for (int64_t i = rows * thread / threads; i < rows * (thread + 1) / threads; ++i)
#pragma omp simd
            for (int64_t j = 0; j < cols; ++j) {
                const T g_ij = y_rows[i * cols + j] > 0 ? dy_rows[i * cols + j] : T(0);
                g_rows[i * cols + j] = g_ij;
                sums[j] += g_ij;
            }
    });
    add_partial_sums(partial, threads, column_sums, cols);
}

// Blocks of rows per thread as in relu_backward_column_sums, each row of g made in a buffer (under
// a ReLU), added to the partial sums and rounded from there.
void rounded_output_gradient(const float* dy, const float* relu_output, bfloat16_bits* g16, float* column_sums, int64_t rows,
                             int64_t cols) {
    // A second thread pays from about 2¹⁹ values (bench_threads times both sides): it must be
    // woken, and the pass is short.
    const int threads = !use_reference() && rows * cols > (int64_t{1} << 19) ? std::min<int64_t>(num_threads(), rows) : 1;
    std::vector<float> partial(column_sums ? static_cast<std::size_t>(threads * cols) : 0, 0.0f);
    parallel_for(threads, threads > 1, [&](int64_t thread) {
        const float* dy_rows = dy;   // locals, not captured references: see relu_backward_column_sums
        const float* y_rows = relu_output;
        bfloat16_bits* g16_rows = g16;
        float* sums = column_sums ? partial.data() + thread * cols : nullptr;
        std::vector<float> masked(y_rows ? cols : 0);   // one row of g under a ReLU
        for (int64_t i = rows * thread / threads; i < rows * (thread + 1) / threads; ++i) {
            const float* g_i = dy_rows + i * cols;
            if (y_rows) {
                const float* y_i = y_rows + i * cols;
#pragma omp simd
                for (int64_t j = 0; j < cols; ++j) masked[j] = y_i[j] > 0 ? g_i[j] : 0.0f;
                g_i = masked.data();
            }
            if (sums) {
#pragma omp simd
                for (int64_t j = 0; j < cols; ++j) sums[j] += g_i[j];
            }
            round_to_bfloat16(g_i, g16_rows + i * cols, cols);
        }
    });
    if (column_sums) add_partial_sums(partial, threads, column_sums, cols);
}

template void sum_axis<float>(const float*, float*, const AxisView&);
template void sum_axis<double>(const double*, double*, const AxisView&);
template void max_axis<float>(const float*, float*, int64_t*, const AxisView&);
template void max_axis<double>(const double*, double*, int64_t*, const AxisView&);
template void relu_backward_column_sums<float>(const float*, const float*, float*, float*, int64_t, int64_t);
template void relu_backward_column_sums<double>(const double*, const double*, double*, double*, int64_t, int64_t);

}  // namespace tf::kernels
