// Fused neural-network ops with a hand-written backward: layer norm, dropout, cross-entropy.
// Each could be composed from smaller ops; fused, they take one pass and keep less memory.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/dropout_mask.h"
#include "autograd/error.h"
#include "autograd/kernels/elementwise.h"
#include "autograd/kernels/layer_norm.h"
#include "autograd/kernels/mode.h"
#include "autograd/kernels/softmax.h"
#include "autograd/kernels/vector_math.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

// The width C of x's last axis, after checking that γ and β are (C) vectors of x's dtype.
int64_t normalised_width(const char* op, const Tensor& x, const Tensor& gamma, const Tensor& beta) {
    const int64_t cols = x.dim() ? x.size(-1) : 0;
    if (gamma.shape() != Shape{cols} || beta.shape() != Shape{cols})
        throw ShapeError(std::string(op) + ": input " + to_string(x.shape()) + " needs gamma and beta of shape (" +
                         std::to_string(cols) + "), got " + to_string(gamma.shape()) + " and " + to_string(beta.shape()));
    if (gamma.dtype() != x.dtype() || beta.dtype() != x.dtype())
        throw ValueError(std::string(op) + ": gamma, beta and input must share a dtype");
    return cols;
}

// Layer norm's backward at input x (its saved row means and rstds): dx, dγ, dβ.
Grads layer_norm_gradients(const Tensor& x, const Tensor& gamma, const Tensor& row_mean, const Tensor& row_rstd,
                           const Tensor& dy) {
    const int64_t cols = gamma.numel(), rows = row_mean.numel();
    Tensor dx(x.shape(), x.dtype()), dgamma({cols}, x.dtype()), dbeta({cols}, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::layer_norm_backward(x.data<T>(), gamma.data<T>(), row_mean.data<T>(), row_rstd.data<T>(), dy.data<T>(),
                                     dx.data<T>(), dgamma.data<T>(), dbeta.data<T>(), rows, cols);
    });
    return {dx, dgamma, dbeta};
}

}  // namespace

// ── layer_norm ──  over the last axis C:  y = γ ⊙ (x − μ)/√(σ² + ε) + β       x: (…, C)  γ, β: (C)
// Backward (kernels/layer_norm.h):  dx = rstd·(g − mean(g) − x̂·mean(g ⊙ x̂)),  g = dy ⊙ γ
//                                   dγ = Σ dy ⊙ x̂,   dβ = Σ dy
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps) {
    const int64_t cols = normalised_width("layer_norm", x, gamma, beta);
    const int64_t rows = cols ? x.numel() / cols : 0;
    Tensor y(x.shape(), x.dtype()), row_mean({rows}, x.dtype()), row_rstd({rows}, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::layer_norm_forward(x.data<T>(), gamma.data<T>(), beta.data<T>(), y.data<T>(), row_mean.data<T>(),
                                    row_rstd.data<T>(), rows, cols, eps);
    });
    return record("layer_norm", {x, gamma, beta}, y, [x, gamma, row_mean, row_rstd](const Tensor& dy) -> Grads {
        return layer_norm_gradients(x, gamma, row_mean, row_rstd, dy);
    });
}

// ── add_layer_norm ──  y = layer_norm(x + r): the post-LN residual LN(x + sublayer(x)) in one pass
// Backward: ds = layer_norm's dx at s = x + r (saved by the forward);  dx = dr = ds
// The readable form (kernels/mode.h) is the two ops it fuses, add then layer_norm.
Tensor add_layer_norm(const Tensor& x, const Tensor& r, const Tensor& gamma, const Tensor& beta, double eps) {
    if (r.shape() != x.shape() || r.dtype() != x.dtype())
        throw ShapeError("add_layer_norm: x " + to_string(x.shape()) + " " + dtype_name(x.dtype()) + " and r " +
                         to_string(r.shape()) + " " + dtype_name(r.dtype()) + " must match");
    if (kernels::use_reference()) return layer_norm(add(x, r), gamma, beta, eps);
    const int64_t cols = normalised_width("add_layer_norm", x, gamma, beta);
    const int64_t rows = cols ? x.numel() / cols : 0;
    Tensor s(x.shape(), x.dtype()), y(x.shape(), x.dtype()), row_mean({rows}, x.dtype()), row_rstd({rows}, x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::add_layer_norm_forward(x.data<T>(), r.data<T>(), gamma.data<T>(), beta.data<T>(), s.data<T>(), y.data<T>(),
                                        row_mean.data<T>(), row_rstd.data<T>(), rows, cols, eps);
    });
    return record("add_layer_norm", {x, r, gamma, beta}, y, [s, gamma, row_mean, row_rstd](const Tensor& dy) -> Grads {
        const Grads at_sum = layer_norm_gradients(s, gamma, row_mean, row_rstd, dy);   // ds, dγ, dβ
        return {at_sum[0], at_sum[0], at_sum[1], at_sum[2]};
    });
}

// ── dropout ──  training: y = x ⊙ m / (1 − p),  m_i ~ Bernoulli(1 − p)   (inverted: eval needs no rescale)
//               eval, or p = 0: y = x                                      dx = dy ⊙ m / (1 − p)
// m at (b, i₁, …, iₙ) is 1 when hash(key, first_row + b, i₁, …, iₙ) / 2⁶⁴ ≥ p, with one key drawn
// from `rng` per call (autograd/dropout_mask.h): an example gets the same mask in any batch.
Tensor dropout(const Tensor& x, double p, Rng& rng, bool training) {
    if (!(p >= 0.0 && p < 1.0)) throw ValueError("dropout: probability " + std::to_string(p) + " is not in [0, 1)");
    if (!training || p == 0.0) return x;
    const uint64_t key = rng.next_u64();
    const int64_t first_row = batch_first_row();
    // The last axis is hashed innermost; a vector's elements are rows of their own.
    const int64_t inner = x.dim() >= 2 ? x.size(-1) : 1;
    const int64_t outer = inner > 0 ? x.numel() / inner : 0;
    const int64_t outer_axes = std::max<int64_t>(x.dim() - 1, 1);
    Tensor scaled_mask(x.shape(), x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T keep_scale = static_cast<T>(1.0 / (1.0 - p));
        T* mask = scaled_mask.data<T>();
        std::vector<int64_t> coordinate(static_cast<std::size_t>(outer_axes));
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t axis = outer_axes - 1, rest = o; axis >= 0; --axis) {
                const int64_t extent = x.dim() >= 2 ? x.size(axis) : outer;
                coordinate[static_cast<std::size_t>(axis)] = rest % extent;
                rest /= extent;
            }
            uint64_t where = hash_coordinate(key, first_row + coordinate[0]);
            for (int64_t axis = 1; axis < outer_axes; ++axis) where = hash_coordinate(where, coordinate[static_cast<std::size_t>(axis)]);
            for (int64_t i = 0; i < inner; ++i) {
                const double u = static_cast<double>(hash_coordinate(where, i) >> 11) * 0x1.0p-53;
                mask[o * inner + i] = u >= p ? keep_scale : T(0);
            }
        }
    });
    Tensor y = kernels::zip(x, scaled_mask, [](auto v, auto m) { return v * m; }, "dropout");
    return record("dropout", {x}, y, [scaled_mask](const Tensor& dy) -> Grads {
        return {kernels::zip(dy, scaled_mask, [](auto g, auto m) { return g * m; }, "dropout")};
    });
}

// ── cross_entropy ──  per row r with target t_r (rows whose target is ignore_index are skipped):
//   q = (1 − ε)·onehot(t_r) + ε/V,   loss_r = −Σ_v q_v · log softmax(z_r)_v,   L = (1/N) Σ_r loss_r
// Backward:  dz_r = (softmax(z_r) − q) · dL / N        N = number of rows not ignored
Tensor cross_entropy(const Tensor& logits, const IndexTensor& targets, CrossEntropyOptions options) {
    if (logits.dim() < 1 || Shape(logits.shape().begin(), logits.shape().end() - 1) != targets.shape)
        throw ShapeError("cross_entropy: logits " + to_string(logits.shape()) + " and targets " +
                         to_string(targets.shape) + ": targets must be the logits' shape without the last axis");
    if (!(options.label_smoothing >= 0.0 && options.label_smoothing < 1.0))
        throw ValueError("cross_entropy: label_smoothing " + std::to_string(options.label_smoothing) + " is not in [0, 1)");
    const int64_t vocab = logits.size(-1);
    const int64_t rows = targets.numel();
    int64_t counted = 0;
    for (int64_t target : targets.values) {
        if (target == options.ignore_index) continue;
        if (target < 0 || target >= vocab)
            throw ShapeError("cross_entropy: target " + std::to_string(target) + " is out of range [0, " +
                             std::to_string(vocab) + ")");
        ++counted;
    }
    Tensor log_probs(logits.shape(), logits.dtype());
    const double eps = options.label_smoothing;
    double total = 0;
    dispatch(logits.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::log_softmax_rows(logits.data<T>(), log_probs.data<T>(), rows, vocab);
        const T* lp = log_probs.data<T>();
        const T* z = logits.data<T>();
        for (int64_t r = 0; r < rows; ++r) {
            if (targets.values[r] == options.ignore_index) continue;
            // Every logit −∞: softmax is undefined, so the row has no loss to score (log_softmax's
            // 0 for such rows is for attention, where a fully masked query reads nothing).
            if (std::all_of(z + r * vocab, z + (r + 1) * vocab, [](T v) { return v == -std::numeric_limits<T>::infinity(); }))
                throw ValueError("cross_entropy: row " + std::to_string(r) + " has every logit −inf: no distribution to " +
                                 "score its target against (ignore the row with ignore_index, or mask fewer classes)");
            total -= (1 - eps) * lp[r * vocab + targets.values[r]];
            // The smoothing term, only with smoothing: a class masked with a −∞ logit has log p = −∞,
            // and 0·(−∞) would make the loss NaN.
            if (eps == 0) continue;
            double row_sum = 0;
            for (int64_t v = 0; v < vocab; ++v) row_sum += lp[r * vocab + v];
            total -= eps / static_cast<double>(vocab) * row_sum;
        }
    });
    // With every target ignored there is nothing to average: the loss is 0 (and so is its gradient).
    Tensor loss = Tensor::scalar(counted ? total / static_cast<double>(counted) : 0.0, logits.dtype());
    return record("cross_entropy", {logits}, loss, [log_probs, targets, options, counted, rows, vocab](const Tensor& dloss) -> Grads {
        if (counted == 0) return {Tensor::zeros(log_probs.shape(), log_probs.dtype())};
        Tensor dlogits(log_probs.shape(), log_probs.dtype());   // every row written below, in parallel
        dispatch(log_probs.dtype(), [&](auto zero) {
            using T = decltype(zero);
            const T scale = static_cast<T>(dloss.item() / static_cast<double>(counted));
            const T smooth = static_cast<T>(options.label_smoothing / static_cast<double>(vocab));
            const T* lp = log_probs.data<T>();
            T* d = dlogits.data<T>();
            // d_v = (p_v − ε/V − (1 − ε)·[v = target])·scale,  p_v = exp(log p_v); `exp_of` is std::exp
            // for the reference and the vectorisable vector_exp for the fast path.
            const auto rows_with = [&](auto exp_of) {
#pragma omp parallel for if (rows * vocab > kernels::kParallelGrain) schedule(static)
                for (int64_t r = 0; r < rows; ++r) {
                    T* d_r = d + r * vocab;
                    if (targets.values[r] == options.ignore_index) {
                        std::fill_n(d_r, vocab, T(0));
                        continue;
                    }
                    const T* lp_r = lp + r * vocab;
#pragma omp simd
                    for (int64_t v = 0; v < vocab; ++v) d_r[v] = (exp_of(lp_r[v]) - smooth) * scale;
                    d_r[targets.values[r]] -= static_cast<T>(1.0 - options.label_smoothing) * scale;
                }
            };
            if (kernels::use_reference()) rows_with([](T v) { return std::exp(v); });
            else rows_with([](T v) { return kernels::vector_exp(v); });
        });
        return {dlogits};
    });
}

}  // namespace tf
