// Layer normalisation over the last axis of a (rows, cols) matrix:
//   μ = mean(x),  σ² = mean((x − μ)²),  x̂ = (x − μ) / √(σ² + ε),  y = γ ⊙ x̂ + β
#pragma once
#include <cstdint>

namespace tf::kernels {

// Writes y, and per row the mean μ and rstd = 1/√(σ² + ε) that backward reuses.
template <class T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int64_t rows,
                        int64_t cols, double eps);

// The post-LN residual in one pass: s = x + r (written, for the backward), then y = layer norm of
// s as above. The same bits as layer_norm_forward on a separately computed x + r.
template <class T>
void add_layer_norm_forward(const T* x, const T* r, const T* gamma, const T* beta, T* s, T* y, T* mean, T* rstd,
                            int64_t rows, int64_t cols, double eps);

// With g = dy ⊙ γ:  dx = rstd · (g − mean(g) − x̂ · mean(g ⊙ x̂))
//                   dγ = Σ_rows dy ⊙ x̂,   dβ = Σ_rows dy
template <class T>
void layer_norm_backward(const T* x, const T* gamma, const T* mean, const T* rstd, const T* dy, T* dx,
                         T* dgamma, T* dbeta, int64_t rows, int64_t cols);

}  // namespace tf::kernels
