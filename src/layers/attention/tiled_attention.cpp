// Tiled attention: the forward is an online softmax over key tiles; the backward rebuilds each
// score tile from Q, K and the saved logsumexp instead of storing the weights. Every product is a
// small GEMM on a tile (oneDNN for f32), so the only (T, S)-sized thing is the work, never memory.
#include "layers/attention/tiled_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "autograd/kernels/vector_math.h"
#include "layers/attention/scaled_dot_product.h"

namespace tf {
namespace {

// What the tile loops read: raw (B·H, rows, D) blocks and the masking rule.
template <class Real>
struct Problem {
    const Real* Q;                     // (B·H, T, D)
    const Real* K;                     // (B·H, S, D)
    const Real* V;                     // (B·H, S, D)
    const uint8_t* key_is_padding;     // (B, S): 1 = padding
    const uint8_t* pattern_hides;      // (T, S): 1 = hidden by the pattern; null without a pattern
    int64_t H, T, S, D;
    Real inv_tau;                      // 1/τ
    bool causal;                       // query i sees keys j ≤ i + (S − T)
    int64_t query_tile, key_tile;
    bool reference;  // ReferenceKernels was on in the caller: reference GEMM loops, one thread
};

// The saved forward results and the gradients the backward writes.
template <class Real>
struct Backward {
    const Real* O;    // (B·H, T, D)
    const Real* L;    // (B·H, T)  logsumexp of each query row's scores, −∞ if fully masked
    const Real* dO;   // (B·H, T, D)
    Real* dQ;         // (B·H, T, D)
    Real* dK;         // (B·H, S, D)
    Real* dV;         // (B·H, S, D)
};

// One (query tile, key tile) block of one (batch, head).
struct Tile {
    int64_t bh;
    int64_t i0, rows;   // query rows [i0, i0 + rows)
    int64_t j0, cols;   // key rows [j0, j0 + cols)
};

// Per-thread buffers of one tile: O(query_tile · key_tile), independent of T and S.
template <class Real>
struct Scratch {
    std::vector<Real> S, dP;     // (query_tile, key_tile): scores, then weights P / dS in place
    std::vector<Real> m, ell;    // (query_tile): running max and running sum of the online softmax
    explicit Scratch(const Problem<Real>& p)
        : S(p.query_tile * p.key_tile), dP(p.query_tile * p.key_tile), m(p.query_tile), ell(p.query_tile) {}
};

template <class Real>
constexpr Real minus_infinity = -std::numeric_limits<Real>::infinity();

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// C = op(A)·op(B), or C += … with shape.accumulate; C is M×N, contiguous.
template <class Real>
void gemm_tile(const Problem<Real>& p, const Real* A, const Real* B, Real* C, const kernels::GemmShape& shape) {
    if (p.reference) kernels::gemm_reference(A, B, C, shape);
    else kernels::gemm(A, B, C, shape);
}

// Keys a query tile can see: all S, or with causal masking only j < i0 + rows + (S − T)
// (query i sits at key position i + S − T: the bottom-right convention of masks.h).
template <class Real>
int64_t key_end(const Problem<Real>& p, int64_t i0, int64_t rows) {
    return p.causal ? std::clamp<int64_t>(i0 + rows + p.S - p.T, 0, p.S) : p.S;
}

// S_ij = q_i·k_j / τ, or −∞ where query i may not see key j (a future key, padding, or the pattern)
template <class Real>
void score_tile(const Problem<Real>& p, const Tile& t, Real* S) {   // S: (rows, cols)
    const Real* Q_i = p.Q + (t.bh * p.T + t.i0) * p.D;   // (rows, D)
    const Real* K_j = p.K + (t.bh * p.S + t.j0) * p.D;   // (cols, D)
    gemm_tile(p, Q_i, K_j, S, {.M = t.rows, .N = t.cols, .K = p.D, .trans_b = true});
    const uint8_t* padding = p.key_is_padding + (t.bh / p.H) * p.S + t.j0;   // (cols)
    const Real inv_tau = p.inv_tau;
    for (int64_t r = 0; r < t.rows; ++r) {
        // tile columns c < visible are keys j ≤ i + S − T (all of them without causal masking)
        const int64_t visible = p.causal ? std::clamp<int64_t>(t.i0 + r + p.S - p.T - t.j0 + 1, 0, t.cols) : t.cols;
        Real* S_r = S + r * t.cols;
#pragma omp simd   // `|`, not `||`: no branch, so the loop vectorises
        for (int64_t c = 0; c < t.cols; ++c)
            S_r[c] = ((c >= visible) | (padding[c] != 0)) ? minus_infinity<Real> : S_r[c] * inv_tau;
        if (!p.pattern_hides) continue;
        const uint8_t* hidden = p.pattern_hides + (t.i0 + r) * p.S + t.j0;   // (cols)
        for (int64_t c = 0; c < t.cols; ++c)
            if (hidden[c]) S_r[c] = minus_infinity<Real>;
    }
}

// max_i x_i (−∞ for an empty or fully masked row)
template <class Real>
Real row_max(const Real* x, int64_t n) {
    Real largest = minus_infinity<Real>;
#pragma omp simd reduction(max : largest)
    for (int64_t i = 0; i < n; ++i) largest = x[i] > largest ? x[i] : largest;   // (GCC vectorises this, not std::max)
    return largest;
}

// The online-softmax update for one key tile, row by row (S becomes P in place):
//   m_new = max(m, max_j S_ij),   α = exp(m − m_new),   P_ij = exp(S_ij − m_new)
//   ℓ ← α·ℓ + Σ_j P_ij,           O_i ← α·O_i          (the caller then adds P·V_j)
// A row with nothing visible yet keeps m = −∞, ℓ = 0, P = 0 (exp(−∞ − (−∞)) would be NaN).
template <class Real>
void online_softmax_step(const Problem<Real>& p, const Tile& t, Real* S, Real* m, Real* ell, Real* O_tile) {
    for (int64_t r = 0; r < t.rows; ++r) {
        Real* S_r = S + r * t.cols;
        const Real m_new = std::max(m[r], row_max(S_r, t.cols));
        if (m_new == minus_infinity<Real>) {
            std::fill_n(S_r, t.cols, Real(0));
            continue;
        }
        const Real alpha = std::exp(m[r] - m_new);   // 0 when m was −∞
        Real row_sum = 0;
#pragma omp simd reduction(+ : row_sum)
        for (int64_t c = 0; c < t.cols; ++c) {
            S_r[c] = kernels::vector_exp(S_r[c] - m_new);
            row_sum += S_r[c];
        }
        ell[r] = alpha * ell[r] + row_sum;
        m[r] = m_new;
        for (int64_t d = 0; d < p.D; ++d) O_tile[r * p.D + d] *= alpha;
    }
}

// Forward of one query tile over all the key tiles it can see:
//   after the last tile  O_i ← O_i / ℓ_i   and   L_i = m_i + log ℓ_i  (the row's logsumexp).
// A fully masked row (ℓ = 0) outputs 0 and saves L = −∞.
template <class Real>
void forward_query_tile(const Problem<Real>& p, int64_t bh, int64_t i0, Real* O, Real* L, Scratch<Real>& scratch) {
    const int64_t rows = std::min(p.query_tile, p.T - i0);
    Real* O_tile = O + (bh * p.T + i0) * p.D;   // (rows, D)
    std::fill_n(O_tile, rows * p.D, Real(0));
    std::fill_n(scratch.m.begin(), rows, minus_infinity<Real>);
    std::fill_n(scratch.ell.begin(), rows, Real(0));
    const int64_t keys = key_end(p, i0, rows);
    for (int64_t j0 = 0; j0 < keys; j0 += p.key_tile) {
        const Tile t{bh, i0, rows, j0, std::min(p.key_tile, keys - j0)};
        score_tile(p, t, scratch.S.data());
        online_softmax_step(p, t, scratch.S.data(), scratch.m.data(), scratch.ell.data(), O_tile);
        // O_i += P·V_j        P: (rows, cols)   V_j: (cols, D)   O_i: (rows, D)
        const Real* V_j = p.V + (bh * p.S + j0) * p.D;
        gemm_tile(p, scratch.S.data(), V_j, O_tile, {.M = rows, .N = p.D, .K = t.cols, .accumulate = true});
    }
    for (int64_t r = 0; r < rows; ++r) {
        const Real ell = scratch.ell[r];
        const Real inverse = ell > 0 ? Real(1) / ell : Real(0);
        for (int64_t d = 0; d < p.D; ++d) O_tile[r * p.D + d] *= inverse;
        L[bh * p.T + i0 + r] = ell > 0 ? scratch.m[r] + std::log(ell) : minus_infinity<Real>;
    }
}

// Work is split over (batch·head, query tile): each writes its own rows of O and L.
template <class Real>
void forward(const Problem<Real>& p, int64_t batch_heads, Real* O, Real* L) {
    const int64_t query_tiles = ceil_div(p.T, p.query_tile);
    const bool worth_threads = !p.reference && batch_heads * p.T * p.S * p.D > kernels::kParallelGrain;
#pragma omp parallel if (worth_threads)
    {
        Scratch<Real> scratch(p);
#pragma omp for collapse(2) schedule(dynamic)
        for (int64_t bh = 0; bh < batch_heads; ++bh)
            for (int64_t tile = 0; tile < query_tiles; ++tile)
                forward_query_tile(p, bh, tile * p.query_tile, O, L, scratch);
    }
}

// Backward of one (query tile, key tile). In the forward this tile contributed O_i += P·V_j with
// P = softmax weights; so now, with Δ_i = Σ_d dO_id·O_id (precomputed per row):
//   P_ij = exp(S_ij − L_i)             the forward's weights, rebuilt from the saved logsumexp
//   dV_j += Pᵀ·dO_i,   dP = dO_i·V_jᵀ,   dS = P ⊙ (dP − Δ_i) / τ   (softmax backward, and S = QKᵀ/τ)
//   dQ_i += dS·K_j,    dK_j += dSᵀ·Q_i
template <class Real>
void backward_tile(const Problem<Real>& p, const Backward<Real>& g, const Tile& t, const Real* delta, Scratch<Real>& scratch) {
    Real* P = scratch.S.data();     // (rows, cols)
    Real* dP = scratch.dP.data();   // (rows, cols), becomes dS
    score_tile(p, t, P);
    // P_ij = exp(S_ij − L_i)
    const Real* L_i = g.L + t.bh * p.T + t.i0;
    for (int64_t r = 0; r < t.rows; ++r) {
        Real* P_r = P + r * t.cols;
        const Real L_r = L_i[r];
        if (L_r == minus_infinity<Real>) {   // a fully masked row has no weights
            std::fill_n(P_r, t.cols, Real(0));
            continue;
        }
#pragma omp simd
        for (int64_t c = 0; c < t.cols; ++c) P_r[c] = kernels::vector_exp(P_r[c] - L_r);
    }
    const int64_t q_offset = (t.bh * p.T + t.i0) * p.D, k_offset = (t.bh * p.S + t.j0) * p.D;
    const Real* dO_i = g.dO + q_offset;   // (rows, D)
    // dV_j += Pᵀ·dO_i          (cols, D)
    gemm_tile(p, P, dO_i, g.dV + k_offset, {.M = t.cols, .N = p.D, .K = t.rows, .trans_a = true, .accumulate = true});
    // dP = dO_i·V_jᵀ           (rows, cols)
    gemm_tile(p, dO_i, p.V + k_offset, dP, {.M = t.rows, .N = t.cols, .K = p.D, .trans_b = true});
    // dS = P ⊙ (dP − Δ_i) / τ   (rows, cols), in dP's buffer
    for (int64_t r = 0; r < t.rows; ++r)
#pragma omp simd
        for (int64_t c = r * t.cols; c < (r + 1) * t.cols; ++c) dP[c] = P[c] * (dP[c] - delta[r]) * p.inv_tau;
    // dQ_i += dS·K_j           (rows, D)
    gemm_tile(p, dP, p.K + k_offset, g.dQ + q_offset, {.M = t.rows, .N = p.D, .K = t.cols, .accumulate = true});
    // dK_j += dSᵀ·Q_i          (cols, D)
    gemm_tile(p, dP, p.Q + q_offset, g.dK + k_offset, {.M = t.cols, .N = p.D, .K = t.rows, .trans_a = true, .accumulate = true});
}

// One (batch, head): key tiles outside, query tiles inside (FlashAttention-2's order); a head's
// dQ, dK and dV are written by one thread only, so there are no write races.
template <class Real>
void backward_head(const Problem<Real>& p, const Backward<Real>& g, int64_t bh, Scratch<Real>& scratch, std::vector<Real>& delta) {
    for (int64_t i = 0; i < p.T; ++i) {   // Δ_i = Σ_d dO_id·O_id
        Real dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t d = 0; d < p.D; ++d) dot += g.dO[(bh * p.T + i) * p.D + d] * g.O[(bh * p.T + i) * p.D + d];
        delta[i] = dot;
    }
    for (int64_t j0 = 0; j0 < p.S; j0 += p.key_tile)
        for (int64_t i0 = 0; i0 < p.T; i0 += p.query_tile) {
            const int64_t rows = std::min(p.query_tile, p.T - i0);
            if (key_end(p, i0, rows) <= j0) continue;   // every key of this tile is in these rows' future
            const Tile t{bh, i0, rows, j0, std::min(p.key_tile, p.S - j0)};
            backward_tile(p, g, t, delta.data() + i0, scratch);
        }
}

template <class Real>
void backward(const Problem<Real>& p, const Backward<Real>& g, int64_t batch_heads) {
    const bool worth_threads = !p.reference && batch_heads > 1 && batch_heads * p.T * p.S * p.D > kernels::kParallelGrain;
#pragma omp parallel if (worth_threads)
    {
        Scratch<Real> scratch(p);
        std::vector<Real> delta(p.T);   // (T) Δ of the current head
#pragma omp for schedule(dynamic)
        for (int64_t bh = 0; bh < batch_heads; ++bh) backward_head(p, g, bh, scratch, delta);
    }
}

// ── checks and setup ────────────────────────────────────────────────────
std::string shapes_text(const Tensor& Q, const Tensor& K, const Tensor& V) {
    return "Q " + to_string(Q.shape()) + ", K " + to_string(K.shape()) + ", V " + to_string(V.shape());
}

void check_inputs(const char* op, const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    const std::string where = std::string(op) + ": " + shapes_text(Q, K, V);
    if (Q.dim() != 4 || K.dim() != 4 || V.dim() != 4)
        throw ShapeError(where + ": expected Q (B, H, T, D), K and V (B, H, S, D)");
    if (K.shape() != V.shape() || Q.size(0) != K.size(0) || Q.size(1) != K.size(1) || Q.size(3) != K.size(3))
        throw ShapeError(where + ": expected Q (B, H, T, D), K and V (B, H, S, D)");
    if (Q.dtype() != K.dtype() || Q.dtype() != V.dtype()) throw ValueError(where + ": dtypes differ");
    const Tensor& mask = options.key_padding_mask;
    if (mask.defined() && mask.shape() != Shape{Q.size(0), K.size(2)})
        throw ShapeError(where + ": key_padding_mask " + to_string(mask.shape()) + " should be (B, S) = " +
                         to_string(Shape{Q.size(0), K.size(2)}));
    const Tensor& pattern = options.pattern_mask;
    if (pattern.defined() && pattern.shape() != Shape{Q.size(2), K.size(2)})
        throw ShapeError(where + ": pattern_mask " + to_string(pattern.shape()) + " should be (T, S) = " +
                         to_string(Shape{Q.size(2), K.size(2)}));
    if (options.query_tile < 1 || options.key_tile < 1)
        throw ValueError(where + ": tile sizes must be ≥ 1, got " + std::to_string(options.query_tile) + " and " +
                         std::to_string(options.key_tile));
    if (options.temperature && !(*options.temperature > 0))
        throw ValueError(where + ": temperature must be > 0, got " + std::to_string(*options.temperature));
}

double temperature(const Tensor& Q, const TiledAttentionOptions& options) {
    return options.temperature ? *options.temperature : std::sqrt(static_cast<double>(Q.size(3)));
}

// A 0/1 mask as one byte per element: 1 = never attend; empty for an undefined mask.
std::vector<uint8_t> mask_bytes(const Tensor& mask) {
    std::vector<uint8_t> bytes;
    if (!mask.defined()) return bytes;
    for (double value : mask.to_vector()) bytes.push_back(value != 0);
    return bytes;
}

// What the tape entry keeps for the backward: the masks as bytes (the padding all 0 when absent).
struct MaskBytes {
    std::vector<uint8_t> padding;   // (B, S)
    std::vector<uint8_t> pattern;   // (T, S), or empty
};

MaskBytes make_mask_bytes(const Tensor& Q, const Tensor& K, const TiledAttentionOptions& options) {
    MaskBytes masks{mask_bytes(options.key_padding_mask), mask_bytes(options.pattern_mask)};
    if (masks.padding.empty()) masks.padding.assign(Q.size(0) * K.size(2), 0);
    return masks;
}

template <class Real>
Problem<Real> make_problem(const Tensor& Q, const Tensor& K, const Tensor& V, const MaskBytes& masks,
                        const TiledAttentionOptions& options) {
    return Problem<Real>{Q.data<Real>(), K.data<Real>(), V.data<Real>(), masks.padding.data(),
                      masks.pattern.empty() ? nullptr : masks.pattern.data(),
                      Q.size(1), Q.size(2), K.size(2), Q.size(3), static_cast<Real>(1.0 / temperature(Q, options)),
                      options.causal, options.query_tile, options.key_tile, kernels::use_reference()};
}

}  // namespace

// ── tiled_attention ──  O = softmax(Q·Kᵀ/τ + M)·V, saving O and L = logsumexp per query row
// Backward: dQ, dK, dV tile by tile from Q, K, V, O, L and dO (see backward_tile).
Tensor tiled_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    check_inputs("tiled_attention", Q, K, V, options);
    const MaskBytes masks = make_mask_bytes(Q, K, options);
    const int64_t batch_heads = Q.size(0) * Q.size(1);
    Tensor O(Q.shape(), Q.dtype());                                // (B, H, T, D)
    Tensor L({Q.size(0), Q.size(1), Q.size(2)}, Q.dtype());        // (B, H, T)
    dispatch(Q.dtype(), [&](auto zero) {
        using Real = decltype(zero);
        forward(make_problem<Real>(Q, K, V, masks, options), batch_heads, O.data<Real>(), L.data<Real>());
    });
    return record("tiled_attention", {Q, K, V}, O,
                  [Q, K, V, O, L, masks, options, batch_heads](const Tensor& dO) -> Grads {
        Tensor dQ = Tensor::zeros(Q.shape(), Q.dtype()), dK = Tensor::zeros(K.shape(), K.dtype()),
               dV = Tensor::zeros(V.shape(), V.dtype());
        dispatch(Q.dtype(), [&](auto zero) {
            using Real = decltype(zero);
            const Backward<Real> g{O.data<Real>(), L.data<Real>(), dO.data<Real>(), dQ.data<Real>(), dK.data<Real>(), dV.data<Real>()};
            backward(make_problem<Real>(Q, K, V, masks, options), g, batch_heads);
        });
        return {dQ, dK, dV};
    });
}

// ── composed_attention ──  the same formula from plain ops and the masks of masks.h
Tensor composed_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    check_inputs("composed_attention", Q, K, V, options);
    const AttentionMask mask{.causal = options.causal, .key_padding = options.key_padding_mask,
                             .pattern = options.pattern_mask};
    return scaled_dot_product_attention(Q, K, V, mask, temperature(Q, options));   // (B, H, T, D)
}

}  // namespace tf
