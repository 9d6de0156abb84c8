// Linear attention: the feature map and the non-causal form composed from ops, and the causal
// prefix sums as one fused op with its own backward. Why fused: composing them needs either every
// state S_t at once, a (B, H, T, D, E) tensor, or the masked T×T matrix φ(Q)φ(K)ᵀ — which is
// exactly the quadratic cost linear attention exists to avoid. The scan keeps one D×E state.
#include "layers/attention/linear_attention.h"

#include <algorithm>
#include <tuple>
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

// Rows of one (batch, head): q_t, k_t are D wide, v_t is E wide.
struct ScanShape {
    int64_t batch_heads, T, D, E;
    bool worth_threads() const { return batch_heads > 1 && batch_heads * T * D * E > kernels::kParallelMultiplyAdds; }
};

// Forward scan of one head:  S ← S + k_t v_tᵀ,   y_t = Sᵀ q_t       S: (D, E)
// With `dy` given it computes dq_t = S_t·dy_t instead (the same scan, read the other way).
template <class Real>
void forward_scan(const ScanShape& s, const Real* q, const Real* k, const Real* v, const Real* dy, Real* out) {
    std::vector<Real> state(s.D * s.E, Real(0));   // (D, E) S_t
    for (int64_t t = 0; t < s.T; ++t) {
        const Real* k_t = k + t * s.D;
        const Real* v_t = v + t * s.E;
        for (int64_t d = 0; d < s.D; ++d)
            for (int64_t e = 0; e < s.E; ++e) state[d * s.E + e] += k_t[d] * v_t[e];
        if (dy) {   // dq_t[d] = Σ_e S_t[d, e]·dy_t[e]
            for (int64_t d = 0; d < s.D; ++d) {
                Real dot = 0;
#pragma omp simd reduction(+ : dot)
                for (int64_t e = 0; e < s.E; ++e) dot += state[d * s.E + e] * dy[t * s.E + e];
                out[t * s.D + d] = dot;
            }
        } else {    // y_t[e] = Σ_d q_t[d]·S_t[d, e]
            Real* y_t = out + t * s.E;
            std::fill_n(y_t, s.E, Real(0));
            for (int64_t d = 0; d < s.D; ++d)
                for (int64_t e = 0; e < s.E; ++e) y_t[e] += q[t * s.D + d] * state[d * s.E + e];
        }
    }
}

// Reverse scan of one head, for the key and value gradients. y_t = Σ_{j≤t} (q_t·k_j) v_j, so
// key j reaches every y_t with t ≥ j; with the suffix state R_j = Σ_{t≥j} q_t dy_tᵀ   (D, E):
//   dk_j = R_j·v_j,    dv_j = R_jᵀ·k_j
template <class Real>
void reverse_scan(const ScanShape& s, const Real* q, const Real* k, const Real* v, const Real* dy, Real* dk, Real* dv) {
    std::vector<Real> suffix(s.D * s.E, Real(0));   // (D, E) R_j
    for (int64_t j = s.T - 1; j >= 0; --j) {
        for (int64_t d = 0; d < s.D; ++d)
            for (int64_t e = 0; e < s.E; ++e) suffix[d * s.E + e] += q[j * s.D + d] * dy[j * s.E + e];
        std::fill_n(dv + j * s.E, s.E, Real(0));
        for (int64_t d = 0; d < s.D; ++d) {
            Real dot = 0;
#pragma omp simd reduction(+ : dot)
            for (int64_t e = 0; e < s.E; ++e) dot += suffix[d * s.E + e] * v[j * s.E + e];
            dk[j * s.D + d] = dot;
            for (int64_t e = 0; e < s.E; ++e) dv[j * s.E + e] += suffix[d * s.E + e] * k[j * s.D + d];
        }
    }
}

void check_prefix_inputs(const Tensor& Q, const Tensor& K, const Tensor& V) {
    const std::string shapes = "Q " + to_string(Q.shape()) + ", K " + to_string(K.shape()) + ", V " + to_string(V.shape());
    if (Q.dim() != 4 || Q.shape() != K.shape() || V.dim() != 4 || V.size(0) != Q.size(0) || V.size(1) != Q.size(1) ||
        V.size(2) != Q.size(2))
        throw ShapeError("causal_prefix_attention: " + shapes + ": expected Q, K (B, H, T, D) and V (B, H, T, E)");
    if (Q.dtype() != K.dtype() || Q.dtype() != V.dtype())
        throw ValueError("causal_prefix_attention: " + shapes + ": dtypes differ");
}

}  // namespace

// ── causal_prefix_attention ──  y_t = q_tᵀ S_t,   S_t = Σ_{j≤t} k_j v_jᵀ
// Backward:  dq_t = S_t·dy_t   (forward scan),   dk_j = R_j·v_j,  dv_j = R_jᵀ·k_j   (reverse scan)
// Heads are independent, so threads split them.
Tensor causal_prefix_attention(const Tensor& Q, const Tensor& K, const Tensor& V) {
    check_prefix_inputs(Q, K, V);
    const ScanShape s{Q.size(0) * Q.size(1), Q.size(2), Q.size(3), V.size(3)};
    Tensor y({Q.size(0), Q.size(1), s.T, s.E}, Q.dtype());   // (B, H, T, E)
    dispatch(Q.dtype(), [&](auto zero) {
        using Real = decltype(zero);
        const Real *q = Q.data<Real>(), *k = K.data<Real>(), *v = V.data<Real>();
        Real* out = y.data<Real>();
#pragma omp parallel for schedule(static) if (s.worth_threads())
        for (int64_t bh = 0; bh < s.batch_heads; ++bh)
            forward_scan<Real>(s, q + bh * s.T * s.D, k + bh * s.T * s.D, v + bh * s.T * s.E, nullptr, out + bh * s.T * s.E);
    });
    return record("causal_prefix_attention", {Q, K, V}, y, [Q, K, V, s](const Tensor& dy) -> Grads {
        Tensor dQ(Q.shape(), Q.dtype()), dK(K.shape(), K.dtype()), dV(V.shape(), V.dtype());
        dispatch(Q.dtype(), [&](auto zero) {
            using Real = decltype(zero);
            const Real *q = Q.data<Real>(), *k = K.data<Real>(), *v = V.data<Real>(), *g = dy.data<Real>();
#pragma omp parallel for schedule(static) if (s.worth_threads())
            for (int64_t bh = 0; bh < s.batch_heads; ++bh) {
                const int64_t qk = bh * s.T * s.D, ve = bh * s.T * s.E;   // this head's offsets
                forward_scan<Real>(s, q + qk, k + qk, v + ve, g + ve, dQ.data<Real>() + qk);
                reverse_scan<Real>(s, q + qk, k + qk, v + ve, g + ve, dK.data<Real>() + qk, dV.data<Real>() + ve);
            }
        });
        return {dQ, dK, dV};
    });
}

// φ(x) = elu(x) + 1 = relu(x) + exp(−relu(−x))      (x + 1 for x > 0, exp(x) for x ≤ 0)
// Written with relu so exp only ever sees x ≤ 0: where(x > 0, x + 1, exp(x)) would overflow exp
// for large x, and the unused branch's 0·∞ gradient is NaN.
Tensor elu_feature_map(const Tensor& x) { return relu(x) + exp(-relu(-x)); }

namespace {

// x (B, H, N, F) → (B, H, length, F) with length − N zero rows in front; x itself when N = length.
Tensor front_pad(const Tensor& x, int64_t length) {
    if (x.size(2) == length) return x;
    const Tensor zeros = Tensor::zeros({x.size(0), x.size(1), length - x.size(2), x.size(3)}, x.dtype());
    return concat({zeros, x}, 2);
}

// The causal sums when S ≠ T, query i seeing keys j ≤ i + (S − T) (the bottom-right convention of
// masks.h): both sides are front-padded to L = max(T, S) zero rows. A zero φ(k) row adds nothing to
// the prefix sums and a zero query row reads nothing, so the last T rows of the length-L scan are
// the queries' outputs.                                          → numerator (B, H, T, E), normaliser (B, H, T, 1)
std::pair<Tensor, Tensor> causal_sums(const Tensor& phi_Q, const Tensor& phi_K, const Tensor& V) {
    const int64_t T = phi_Q.size(2), S = phi_K.size(2), L = std::max(T, S);
    const Tensor q = front_pad(phi_Q, L), k = front_pad(phi_K, L);
    const Tensor ones = front_pad(Tensor::ones({V.size(0), V.size(1), S, 1}, V.dtype()), L);
    return {slice(causal_prefix_attention(q, k, front_pad(V, L)), 2, L - T, L),
            slice(causal_prefix_attention(q, k, ones), 2, L - T, L)};
}

}  // namespace

// out = φ(Q)(φ(K)ᵀV) / (φ(Q)(φ(K)ᵀ1) + ε)         non-causal: two (D, E)-sized sums over all keys
// out_t = φ(q_t)ᵀS_t / (φ(q_t)ᵀz_t + ε),  S_t = Σ_{j≤t+S−T} φ(k_j)v_jᵀ,  z_t = Σ_{j≤t+S−T} φ(k_j)   (causal)
Tensor linear_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const LinearAttentionOptions& options) {
    if (Q.dim() != 4 || K.dim() != 4 || V.dim() != 4 || K.size(2) != V.size(2) || Q.size(3) != K.size(3))
        throw ShapeError("linear_attention: Q " + to_string(Q.shape()) + ", K " + to_string(K.shape()) + ", V " +
                         to_string(V.shape()) + ": expected Q (B, H, T, D), K (B, H, S, D), V (B, H, S, E)");
    const int64_t B = K.size(0), S = K.size(2);
    const Tensor phi_Q = elu_feature_map(Q);   // (B, H, T, D)
    Tensor phi_K = elu_feature_map(K);         // (B, H, S, D)
    if (options.key_padding_mask.defined()) {
        if (options.key_padding_mask.shape() != Shape{B, S})
            throw ShapeError("linear_attention: key_padding_mask " + to_string(options.key_padding_mask.shape()) +
                             " should be (B, S) = " + to_string(Shape{B, S}));
        phi_K = masked_fill(phi_K, options.key_padding_mask.view({B, 1, S, 1}), 0.0);
    }
    Tensor numerator, normaliser;   // (B, H, T, E), (B, H, T, 1)
    if (options.causal) {
        std::tie(numerator, normaliser) = causal_sums(phi_Q, phi_K, V);
    } else {
        const Tensor KV = matmul(phi_K, V, {.transpose_a = true});   // (B, H, D, E)  Σ_j φ(k_j)v_jᵀ
        const Tensor z = sum(phi_K, {-2}, /*keepdim=*/true);         // (B, H, 1, D)  Σ_j φ(k_j)
        numerator = matmul(phi_Q, KV);
        normaliser = matmul(phi_Q, z, {.transpose_b = true});
    }
    return numerator / (normaliser + options.epsilon);
}

}  // namespace tf
