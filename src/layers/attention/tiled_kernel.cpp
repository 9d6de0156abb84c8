// Tiled attention: the forward is an online softmax over key tiles; the backward rebuilds each
// score tile from Q, K and the saved logsumexp instead of storing the weights. Every product is a
// small GEMM on a tile (oneDNN for f32), so the only (T, S)-sized thing is the work, never memory.
// Beside it: where the heads lie (tiled_layout.h), bf16 products (tiled_bf16.h), and how the tiles
// are spread over threads (tiled_work_split.cpp). The equations: docs/math/fast_attention.md §1–2.
#include "layers/attention/tiled_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/kernels/vector_math.h"
#include "layers/attention/tiled_bf16.h"

namespace tf::tiled {
namespace {

// One (query tile, key tile) block of one query head, for a run of batch items at once: every
// product of the block is one GEMM batched over those items (a call per item and head made
// thousands of calls a step at T = 64, each too small to be worth its overhead).
struct Tile {
    int64_t b0, items;  // batch items [b0, b0 + items)
    int64_t h;          // the query head; its keys and values are head key_value_head(p, h)
    int64_t i0, rows;   // query rows [i0, i0 + rows)
    int64_t j0, cols;   // key rows [j0, j0 + cols)
};

template <class Real>
constexpr Real minus_infinity = -std::numeric_limits<Real>::infinity();

// Keys a query tile can see: all S, or with causal masking only j < i0 + rows + (S − T)
// (query i sits at key position i + S − T: the bottom-right convention of masks.h).
template <class Real>
int64_t key_end(const Problem<Real>& p, int64_t i0, int64_t rows) {
    return p.causal ? std::clamp<int64_t>(i0 + rows + p.S - p.T, 0, p.S) : p.S;
}

// Whether some query of the tile may not see some key of it: the causal edge crosses the tile
// (its first query cannot see its last key), an item has padding among the tile's keys, or there
// is a pattern. Most tiles of a long sequence need no mask, and skip the pass that applies it.
template <class Real>
bool tile_is_masked(const Problem<Real>& p, const Tile& t) {
    if (p.pattern_hides || (p.causal && t.j0 + t.cols - 1 > t.i0 + p.S - p.T)) return true;
    for (int64_t n = 0; n < t.items; ++n) {
        const uint8_t* padding = p.key_is_padding + (t.b0 + n) * p.S + t.j0;   // (cols)
        if (std::any_of(padding, padding + t.cols, [](uint8_t is_padding) { return is_padding != 0; })) return true;
    }
    return false;
}

// The raw scores S_ij = q_i·k_j, or −∞ where query i may not see key j (a future key, padding, or
// the pattern). The scale 1/τ is applied where the weights are made, inside their exponent
// (exp_row): one pass over the tile fewer.
template <class Real>
void score_tile(const Problem<Real>& p, const Tile& t, Real* S) {   // S: (items, rows, cols)
    gemm_tile(p, rows_of(p.Q, t.b0, t.h, t.i0), rows_of(p.K, t.b0, key_value_head(p, t.h), t.j0), S,   // (rows, D)·(cols, D)ᵀ per item
              {.batch = t.items, .M = t.rows, .N = t.cols, .K = p.D, .trans_b = true, .batch_stride_a = p.Q.real.batch_stride,
               .batch_stride_b = p.K.real.batch_stride, .batch_stride_c = t.rows * t.cols, .lda = p.Q.real.row_stride,
               .ldb = p.K.real.row_stride});
    if (!tile_is_masked(p, t)) return;
    for (int64_t n = 0; n < t.items; ++n) {
        const uint8_t* padding = p.key_is_padding + (t.b0 + n) * p.S + t.j0;   // (cols)
        for (int64_t r = 0; r < t.rows; ++r) {
            // tile columns c < visible are keys j ≤ i + S − T (all of them without causal masking)
            const int64_t visible = p.causal ? std::clamp<int64_t>(t.i0 + r + p.S - p.T - t.j0 + 1, 0, t.cols) : t.cols;
            Real* S_r = S + (n * t.rows + r) * t.cols;
#pragma omp simd   // `|`, not `||`: no branch, so the loop vectorises
            for (int64_t c = 0; c < t.cols; ++c)
                S_r[c] = ((c >= visible) | (padding[c] != 0)) ? minus_infinity<Real> : S_r[c];
            if (!p.pattern_hides) continue;
            const uint8_t* hidden = p.pattern_hides + (t.i0 + r) * p.S + t.j0;   // (cols)
            for (int64_t c = 0; c < t.cols; ++c)
                if (hidden[c]) S_r[c] = minus_infinity<Real>;
        }
    }
}

// One row of weights from n raw scores, in place:  P_c = exp(S_c·inv_tau − shift)
template <class Real>
void exp_row(Real* S, Real inv_tau, Real shift, int64_t n) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) S[c] = kernels::vector_exp(S[c] * inv_tau - shift);
}

// The same, returning Σ_c P_c. The sum is kept in 16 lanes (a vector of floats), added pairwise
// at the end: with `omp simd reduction` GCC adds up a vector's lanes one by one through memory
// at the end of every row, a serial tail as long as a short row's vector work.
template <class Real>
Real exp_row_sum(Real* S, Real inv_tau, Real shift, int64_t n) {
    constexpr int64_t kLanes = 16;
    Real lanes[kLanes] = {};
    const auto exp_into_lanes = [&](Real* x, int64_t width) {
#pragma omp simd
        for (int64_t l = 0; l < width; ++l) {
            x[l] = kernels::vector_exp(x[l] * inv_tau - shift);
            lanes[l] += x[l];
        }
    };
    int64_t c0 = 0;
    for (; c0 + kLanes <= n; c0 += kLanes) exp_into_lanes(S + c0, kLanes);
    exp_into_lanes(S + c0, n - c0);
    for (int64_t half = kLanes / 2; half >= 1; half /= 2)
        for (int64_t l = 0; l < half; ++l) lanes[l] += lanes[l + half];
    return lanes[0];
}

// The online-softmax update for one key tile, row by row of every item (S, raw scores, becomes
// P in place):
//   m_new = max(m, max_j S_ij/τ),   α = exp(m − m_new),   P_ij = exp(S_ij/τ − m_new)
//   ℓ ← α·ℓ + Σ_j P_ij,             O_i ← α·O_i          (the caller then adds P·V_j)
// (max_j S_ij/τ is (max_j S_ij)/τ exactly: τ > 0, and rounding keeps the order.)
// A row with nothing visible yet keeps m = −∞, ℓ = 0, P = 0 (exp(−∞ − (−∞)) would be NaN).
template <class Real>
void online_softmax_step(const Problem<Real>& p, const Tile& t, Real* S, Real* m, Real* ell, const HeadLayout<Real*>& O) {
    for (int64_t n = 0; n < t.items; ++n)
        for (int64_t r = 0; r < t.rows; ++r) {
            const int64_t row = n * t.rows + r;
            Real* S_r = S + row * t.cols;
            const Real m_new = std::max(m[row], kernels::vector_row_max(S_r, t.cols) * p.inv_tau);
            if (m_new == minus_infinity<Real>) {
                std::fill_n(S_r, t.cols, Real(0));
                continue;
            }
            const Real alpha = std::exp(m[row] - m_new);   // 0 when m was −∞
            ell[row] = alpha * ell[row] + exp_row_sum(S_r, p.inv_tau, m_new, t.cols);
            m[row] = m_new;
            Real* O_r = O.row(t.b0 + n, t.h, t.i0 + r);
            for (int64_t d = 0; d < p.D; ++d) O_r[d] *= alpha;
        }
}

}  // namespace

// Forward of one query tile of head h, for `items` batch items from b0, over all the key tiles it
// can see:  after the last tile  O_i ← O_i / ℓ_i  and  L_i = m_i + log ℓ_i  (the row's logsumexp).
// A fully masked row (ℓ = 0) outputs 0 and saves L = −∞.
template <class Real>
void forward_query_tile(const Problem<Real>& p, int64_t b0, int64_t items, int64_t h, int64_t i0, const HeadLayout<Real*>& O,
                        Real* L, Scratch<Real>& scratch) {
    const int64_t rows = std::min(p.query_tile, p.T - i0);
    // before the first key tile:  O_i = 0,  m = −∞,  ℓ = 0
    for (int64_t n = 0; n < items; ++n)
        for (int64_t r = 0; r < rows; ++r) std::fill_n(O.row(b0 + n, h, i0 + r), p.D, Real(0));
    std::fill_n(scratch.m.begin(), items * rows, minus_infinity<Real>);
    std::fill_n(scratch.ell.begin(), items * rows, Real(0));
    const int64_t keys = key_end(p, i0, rows);
    for (int64_t j0 = 0; j0 < keys; j0 += p.key_tile) {
        const Tile t{b0, items, h, i0, rows, j0, std::min(p.key_tile, keys - j0)};
        score_tile(p, t, scratch.S.data());
        online_softmax_step(p, t, scratch.S.data(), scratch.m.data(), scratch.ell.data(), O);
        round_tile(p, scratch.S.data(), scratch.P16.data(), items * rows * t.cols);
        // O_i += P·V_j        P: (rows, cols)   V_j: (cols, D)   O_i: (rows, D), for every item
        gemm_tile(p, {scratch.S.data(), scratch.P16.data()}, rows_of(p.V, b0, key_value_head(p, h), j0), O.row(b0, h, i0),
                  {.batch = items, .M = rows, .N = p.D, .K = t.cols, .batch_stride_a = rows * t.cols,
                   .batch_stride_b = p.V.real.batch_stride, .batch_stride_c = O.batch_stride, .accumulate = true,
                   .ldb = p.V.real.row_stride, .ldc = O.row_stride});
    }
    for (int64_t n = 0; n < items; ++n)
        for (int64_t r = 0; r < rows; ++r) {
            const Real ell = scratch.ell[n * rows + r];
            const Real inverse = ell > 0 ? Real(1) / ell : Real(0);
            Real* O_r = O.row(b0 + n, h, i0 + r);
            for (int64_t d = 0; d < p.D; ++d) O_r[d] *= inverse;
            L[((b0 + n) * p.H + h) * p.T + i0 + r] = ell > 0 ? scratch.m[n * rows + r] + std::log(ell) : minus_infinity<Real>;
        }
}

namespace {

// Backward of one (query tile, key tile) for a run of items. In the forward this tile contributed
// O_i += P·V_j with P = softmax weights; so now, with Δ_i = Σ_d dO_id·O_id (precomputed per row):
//   P_ij = exp(S_ij/τ − L_i)           the forward's weights, rebuilt from the saved logsumexp
//   dV_j += Pᵀ·dO_i,   dP = dO_i·V_jᵀ,   dS = P ⊙ (dP − Δ_i) / τ   (softmax backward, and S/τ = QKᵀ/τ)
//   dQ_i += dS·K_j,    dK_j += dSᵀ·Q_i
// delta holds Δ for the run's items, T rows each.
template <class Real>
void backward_tile(const Problem<Real>& p, const Backward<Real>& g, const Tile& t, const Real* delta, Scratch<Real>& scratch) {
    Real* P = scratch.S.data();     // (items, rows, cols)
    Real* dP = scratch.dP.data();   // (items, rows, cols), becomes dS
    const int64_t block = t.rows * t.cols;
    score_tile(p, t, P);
    for (int64_t n = 0; n < t.items; ++n) {   // P_ij = exp(S_ij/τ − L_i)
        const Real* L_i = g.L + ((t.b0 + n) * p.H + t.h) * p.T + t.i0;
        for (int64_t r = 0; r < t.rows; ++r) {
            Real* P_r = P + n * block + r * t.cols;
            if (L_i[r] == minus_infinity<Real>) {   // a fully masked row has no weights
                std::fill_n(P_r, t.cols, Real(0));
                continue;
            }
            exp_row(P_r, p.inv_tau, L_i[r], t.cols);
        }
    }
    round_tile(p, P, scratch.P16.data(), t.items * block);
    const int64_t kv_head = key_value_head(p, t.h);
    const TileRows<Real> dO_i = rows_of(g.dO, t.b0, t.h, t.i0);   // (rows, D) per item
    const TileRows<Real> Q_i = rows_of(p.Q, t.b0, t.h, t.i0);     // (rows, D)
    const TileRows<Real> K_j = rows_of(p.K, t.b0, kv_head, t.j0); // (cols, D)
    const TileRows<Real> V_j = rows_of(p.V, t.b0, kv_head, t.j0); // (cols, D)
    const int64_t ldq = p.Q.real.row_stride, ldk = p.K.real.row_stride, ldv = p.V.real.row_stride, ldo = g.dO.real.row_stride;
    const int64_t bq = p.Q.real.batch_stride, bk = p.K.real.batch_stride, bv = p.V.real.batch_stride, bo = g.dO.real.batch_stride;
    // dV_j += Pᵀ·dO_i          (cols, D)
    gemm_tile(p, {P, scratch.P16.data()}, dO_i, g.dV.row(t.b0, kv_head, t.j0),
              {.batch = t.items, .M = t.cols, .N = p.D, .K = t.rows, .trans_a = true, .batch_stride_a = block, .batch_stride_b = bo,
               .batch_stride_c = g.dV.batch_stride, .accumulate = true, .ldb = ldo, .ldc = g.dV.row_stride});
    // dP = dO_i·V_jᵀ           (rows, cols)
    gemm_tile(p, dO_i, V_j, dP, {.batch = t.items, .M = t.rows, .N = t.cols, .K = p.D, .trans_b = true, .batch_stride_a = bo,
                                 .batch_stride_b = bv, .batch_stride_c = block, .lda = ldo, .ldb = ldv});
    // dS = P ⊙ (dP − Δ_i) / τ   (rows, cols), in dP's buffer
    for (int64_t n = 0; n < t.items; ++n)
        for (int64_t r = 0; r < t.rows; ++r) {
            const Real delta_r = delta[n * p.T + t.i0 + r];
            const int64_t first = n * block + r * t.cols;
#pragma omp simd
            for (int64_t c = first; c < first + t.cols; ++c) dP[c] = P[c] * (dP[c] - delta_r) * p.inv_tau;
        }
    round_tile(p, dP, scratch.dS16.data(), t.items * block);
    const TileRows<Real> dS{dP, scratch.dS16.data()};
    // dQ_i += dS·K_j           (rows, D)
    gemm_tile(p, dS, K_j, g.dQ.row(t.b0, t.h, t.i0),
              {.batch = t.items, .M = t.rows, .N = p.D, .K = t.cols, .batch_stride_a = block, .batch_stride_b = bk,
               .batch_stride_c = g.dQ.batch_stride, .accumulate = true, .ldb = ldk, .ldc = g.dQ.row_stride});
    // dK_j += dSᵀ·Q_i          (cols, D)
    gemm_tile(p, dS, Q_i, g.dK.row(t.b0, kv_head, t.j0),
              {.batch = t.items, .M = t.cols, .N = p.D, .K = t.rows, .trans_a = true, .batch_stride_a = block, .batch_stride_b = bq,
               .batch_stride_c = g.dK.batch_stride, .accumulate = true, .ldb = ldq, .ldc = g.dK.row_stride});
}

}  // namespace

// Δ_i = Σ_d dO_id·O_id for the T query rows of query head h, for `items` batch items from b0: the
// softmax backward's row term, from the forward's output instead of the weights. delta: (items, T).
template <class Real>
void row_deltas(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, Real* delta) {
    for (int64_t n = 0; n < items; ++n)
        for (int64_t i = 0; i < p.T; ++i) {
            const Real* dO_i = g.dO.real.row(b0 + n, h, i);
            const Real* O_i = g.O.row(b0 + n, h, i);
            Real dot = 0;
#pragma omp simd reduction(+ : dot)
            for (int64_t d = 0; d < p.D; ++d) dot += dO_i[d] * O_i[d];
            delta[n * p.T + i] = dot;
        }
}

// Every query tile of query head h, for a run of items, against key tile j0, skipping the pairs
// the causal mask hides entirely.
template <class Real>
void backward_key_tile(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, int64_t j0,
                       const Real* delta, Scratch<Real>& scratch) {
    for (int64_t i0 = 0; i0 < p.T; i0 += p.query_tile) {
        const int64_t rows = std::min(p.query_tile, p.T - i0);
        if (key_end(p, i0, rows) <= j0) continue;   // every key of this tile is in these rows' future
        backward_tile(p, g, {b0, items, h, i0, rows, j0, std::min(p.key_tile, p.S - j0)}, delta, scratch);
    }
}

template void forward_query_tile(const Problem<float>&, int64_t, int64_t, int64_t, int64_t, const HeadLayout<float*>&, float*,
                                 Scratch<float>&);
template void forward_query_tile(const Problem<double>&, int64_t, int64_t, int64_t, int64_t, const HeadLayout<double*>&,
                                 double*, Scratch<double>&);
template void row_deltas(const Problem<float>&, const Backward<float>&, int64_t, int64_t, int64_t, float*);
template void row_deltas(const Problem<double>&, const Backward<double>&, int64_t, int64_t, int64_t, double*);
template void backward_key_tile(const Problem<float>&, const Backward<float>&, int64_t, int64_t, int64_t, int64_t, const float*,
                                Scratch<float>&);
template void backward_key_tile(const Problem<double>&, const Backward<double>&, int64_t, int64_t, int64_t, int64_t,
                                const double*, Scratch<double>&);

}  // namespace tf::tiled
