// Layer norm kernels: rows are independent in the forward and in dx, so threads split rows;
// dγ and dβ sum over rows, so each thread keeps its own partial sums and they are added at the end.
#include "autograd/kernels/layer_norm.h"

#include <cmath>
#include <vector>

#include <omp.h>

#include "autograd/kernels/mode.h"

namespace tf::kernels {

namespace {

// One row: its statistics into *mean and *rstd, y_row = γ ⊙ x̂ + β.
template <class T>
void normalize_row(const T* x_row, const T* gamma, const T* beta, T* y_row, T* mean, T* rstd, int64_t cols, double eps) {
    double total = 0;  // accumulate the statistics in double: cheap, and exact enough for f32 inputs
    // omp simd: lets the compiler split each sum over vector lanes (an order IEEE rules forbid it to pick)
#pragma omp simd reduction(+ : total)
    for (int64_t j = 0; j < cols; ++j) total += x_row[j];
    const double row_mean = total / static_cast<double>(cols);
    double squares = 0;
#pragma omp simd reduction(+ : squares)
    for (int64_t j = 0; j < cols; ++j) squares += (x_row[j] - row_mean) * (x_row[j] - row_mean);
    const double row_rstd = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
    *mean = static_cast<T>(row_mean);
    *rstd = static_cast<T>(row_rstd);
    for (int64_t j = 0; j < cols; ++j) y_row[j] = static_cast<T>((x_row[j] - row_mean) * row_rstd) * gamma[j] + beta[j];
}

}  // namespace

template <class T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int64_t rows,
                        int64_t cols, double eps) {
    const bool parallel = !use_reference() && rows * cols > kParallelGrain;
    parallel_for(rows, parallel, [&](int64_t r) {
        normalize_row(x + r * cols, gamma, beta, y + r * cols, mean + r, rstd + r, cols, eps);
    });
}

template <class T>
void add_layer_norm_forward(const T* x, const T* r, const T* gamma, const T* beta, T* s, T* y, T* mean, T* rstd,
                            int64_t rows, int64_t cols, double eps) {
    const bool parallel = !use_reference() && rows * cols > kParallelGrain;
    parallel_for(rows, parallel, [&](int64_t row) {
        T* s_row = s + row * cols;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) s_row[j] = x[row * cols + j] + r[row * cols + j];
        normalize_row(s_row, gamma, beta, y + row * cols, mean + row, rstd + row, cols, eps);
    });
}

template <class T>
void layer_norm_backward(const T* x, const T* gamma, const T* mean, const T* rstd, const T* dy, T* dx,
                         T* dgamma, T* dbeta, int64_t rows, int64_t cols) {
    const bool parallel = !use_reference() && rows * cols > kParallelGrain;
    const int threads = parallel ? num_threads() : 1;
    std::vector<T> partial_dgamma(static_cast<std::size_t>(threads * cols), T(0));
    std::vector<T> partial_dbeta(static_cast<std::size_t>(threads * cols), T(0));
#pragma omp parallel num_threads(threads) if (parallel)
    {
        const int thread = parallel ? omp_get_thread_num() : 0;
        T* my_dgamma = partial_dgamma.data() + thread * cols;
        T* my_dbeta = partial_dbeta.data() + thread * cols;
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const T* x_row = x + r * cols;
            const T* dy_row = dy + r * cols;
            // In the forward pass x̂ = (x − μ)·rstd; g = dy ⊙ γ is the gradient reaching x̂.
            T g_mean = 0, g_xhat_mean = 0;
#pragma omp simd reduction(+ : g_mean, g_xhat_mean)
            for (int64_t j = 0; j < cols; ++j) {
                const T x_hat = (x_row[j] - mean[r]) * rstd[r];
                const T g = dy_row[j] * gamma[j];
                g_mean += g;
                g_xhat_mean += g * x_hat;
                my_dgamma[j] += dy_row[j] * x_hat;
                my_dbeta[j] += dy_row[j];
            }
            g_mean /= static_cast<T>(cols);
            g_xhat_mean /= static_cast<T>(cols);
            for (int64_t j = 0; j < cols; ++j) {
                const T x_hat = (x_row[j] - mean[r]) * rstd[r];
                dx[r * cols + j] = rstd[r] * (dy_row[j] * gamma[j] - g_mean - x_hat * g_xhat_mean);
            }
        }
    }
    for (int64_t j = 0; j < cols; ++j) {
        dgamma[j] = 0;
        dbeta[j] = 0;
        for (int thread = 0; thread < threads; ++thread) {
            dgamma[j] += partial_dgamma[thread * cols + j];
            dbeta[j] += partial_dbeta[thread * cols + j];
        }
    }
}

template void layer_norm_forward<float>(const float*, const float*, const float*, float*, float*, float*, int64_t,
                                        int64_t, double);
template void layer_norm_forward<double>(const double*, const double*, const double*, double*, double*, double*,
                                         int64_t, int64_t, double);
template void add_layer_norm_forward<float>(const float*, const float*, const float*, const float*, float*, float*,
                                            float*, float*, int64_t, int64_t, double);
template void add_layer_norm_forward<double>(const double*, const double*, const double*, const double*, double*,
                                             double*, double*, double*, int64_t, int64_t, double);
template void layer_norm_backward<float>(const float*, const float*, const float*, const float*, const float*,
                                         float*, float*, float*, int64_t, int64_t);
template void layer_norm_backward<double>(const double*, const double*, const double*, const double*,
                                          const double*, double*, double*, double*, int64_t, int64_t);

}  // namespace tf::kernels
