// Tiled attention: the forward is an online softmax over key tiles; the backward rebuilds each
// score tile from Q, K and the saved logsumexp instead of storing the weights. Every product is a
// small GEMM on a tile (oneDNN for f32), so the only (T, S)-sized thing is the work, never memory.
// The tiles are read where the heads lie: in (B, H, T, D) tensors, or in place in the rows of the
// projections (B, T, ·), so a multi-head layer needs no copy to split or merge its heads.
#include "layers/attention/tiled_attention.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <omp.h>

#include "autograd/error.h"
#include "autograd/kernels/bfloat16.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/rounded_copy.h"
#include "autograd/tape.h"
#include "autograd/kernels/vector_math.h"
#include "layers/attention/scaled_dot_product.h"

namespace tf {
namespace {

// Where one operand's heads lie in its buffer: row i of head h of batch item b starts at
//   base + b·batch_stride + h·head_stride + i·row_stride        (D values from there on)
// (B, H, T, D), contiguous:                  batch_stride H·T·D, head_stride T·D, row_stride D.
// rows (B, T, W), head h at columns c + h·D:  base + c, batch_stride T·W, head_stride D, row_stride W.
template <class Pointer>
struct HeadLayout {
    Pointer base;
    int64_t batch_stride, head_stride, row_stride;
    Pointer row(int64_t b, int64_t h, int64_t i) const { return base + b * batch_stride + h * head_stride + i * row_stride; }
};

// The heads of one operand of the products, and under bf16 products (matmul_precision.h) the same
// heads rounded to bf16 once, in the same layout: each is multiplied by many tiles, and rounding it
// for every product cost more than the products themselves on AMX.
template <class Real>
struct Heads {
    HeadLayout<const Real*> real;
    HeadLayout<const kernels::bfloat16_bits*> rounded;   // used only when Problem::bf16
};

// One tile's rows of an operand, in both forms (see Heads).
template <class Real>
struct TileRows {
    const Real* real;
    const kernels::bfloat16_bits* rounded;
};
template <class Real>
TileRows<Real> rows_of(const Heads<Real>& x, int64_t b, int64_t h, int64_t i) {
    return {x.real.row(b, h, i), x.rounded.base ? x.rounded.row(b, h, i) : nullptr};
}

// What the tile loops read: the heads of Q (H of them), K and V (H_kv = H / group), and the
// masking rule. Query head h reads key/value head h / group.
template <class Real>
struct Problem {
    Heads<Real> Q;                     // (B, H, T, D) heads
    Heads<Real> K, V;                  // (B, H_kv, S, D) heads
    const uint8_t* key_is_padding;     // (B, S): 1 = padding
    const uint8_t* pattern_hides;      // (T, S): 1 = hidden by the pattern; null without a pattern
    int64_t H, group, T, S, D;
    Real inv_tau;                      // 1/τ
    bool causal;                       // query i sees keys j ≤ i + (S − T)
    int64_t query_tile, key_tile;
    bool reference;  // ReferenceKernels was on in the caller: reference GEMM loops, one thread
    bool bf16;       // the products multiply bf16 operands (the weights P and dS rounded as they are made)
};

// The saved forward results and the gradients the backward writes, in their operands' layouts.
template <class Real>
struct Backward {
    HeadLayout<const Real*> O;       // (B, H, T, D) heads
    Heads<Real> dO;                  // (B, H, T, D) heads
    const Real* L;                   // (B·H, T)  logsumexp of each query row's scores, −∞ if fully masked
    HeadLayout<Real*> dQ;            // (B, H, T, D) heads
    HeadLayout<Real*> dK, dV;        // (B, H_kv, S, D) heads
};

// One (query tile, key tile) block of one query head, for a run of batch items at once: every
// product of the block is one GEMM batched over those items (a call per item and head made
// thousands of calls a step at T = 64, each too small to be worth its overhead).
struct Tile {
    int64_t b0, items;  // batch items [b0, b0 + items)
    int64_t h;          // the query head; its keys and values are head h / group
    int64_t i0, rows;   // query rows [i0, i0 + rows)
    int64_t j0, cols;   // key rows [j0, j0 + cols)
};

// A tile's block of scores holds at most this many values (64 KiB in f32) over all its items, so
// that the block, its weights and their gradient stay in one core's L2 cache while the passes over
// them run (exp, the softmax backward, bf16 rounding). Batching more items makes fewer, larger
// products, but past this the passes wait on memory: W4's causal layer (16 items of 128 × 128, 2
// threads) took 1.26× as long forward and backward with bf16 products, 1.08× in fp32, batching all
// 16 items as one item at a time.
constexpr int64_t kTileScoreValues = int64_t{1} << 14;

// How many batch items a tile spans: enough tasks for every thread (two each, for balance) of the
// `per_item` tasks each item has, and within that as many items as fit kTileScoreValues (at least
// one). A tile of one item is rows × cols scores.
template <class Real>
int64_t items_per_tile(const Problem<Real>& p, int64_t batch, int64_t per_item, int threads) {
    const int64_t tasks_wanted = 2 * static_cast<int64_t>(threads);
    const int64_t runs = std::clamp<int64_t>((tasks_wanted + per_item - 1) / per_item, 1, batch);
    const int64_t scores_per_item = std::min(p.query_tile, p.T) * std::min(p.key_tile, p.S);
    return std::clamp<int64_t>(kTileScoreValues / scores_per_item, 1, (batch + runs - 1) / runs);
}

// Per-thread buffers of one tile: O(items · query_tile · key_tile), independent of T and S, sized
// for the largest tile, rows = min(query_tile, T) by cols = min(key_tile, S).
template <class Real>
struct Scratch {
    std::vector<Real> S, dP;     // (items, rows, cols): scores, then weights P / dS in place
    std::vector<Real> m, ell;    // (items, rows): running max and running sum of the online softmax
    std::vector<kernels::bfloat16_bits> P16, dS16;   // P and dS rounded as they are made (bf16 only)
    Scratch(const Problem<Real>& p, int64_t items)
        : S(items * std::min(p.query_tile, p.T) * std::min(p.key_tile, p.S)), dP(S.size()), m(items * std::min(p.query_tile, p.T)),
          ell(m.size()), P16(p.bf16 ? S.size() : 0), dS16(p.bf16 ? S.size() : 0) {}
};

template <class Real>
constexpr Real minus_infinity = -std::numeric_limits<Real>::infinity();

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// C = op(A)·op(B), or C += … with shape.accumulate; on the bf16 operands when the products run in bf16.
template <class Real>
void gemm_tile(const Problem<Real>& p, const TileRows<Real>& A, const TileRows<Real>& B, Real* C, const kernels::GemmShape& shape) {
    if (p.reference) {
        kernels::gemm_reference(A.real, B.real, C, shape);
        return;
    }
    if constexpr (std::is_same_v<Real, float>)
        if (p.bf16) {
            kernels::gemm(A.rounded, B.rounded, C, shape);
            return;
        }
    kernels::gemm(A.real, B.real, C, shape);
}

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
    gemm_tile(p, rows_of(p.Q, t.b0, t.h, t.i0), rows_of(p.K, t.b0, t.h / p.group, t.j0), S,   // (rows, D)·(cols, D)ᵀ per item
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

// max_i x_i (−∞ for an empty or fully masked row)
template <class Real>
Real row_max(const Real* x, int64_t n) {
    Real largest = minus_infinity<Real>;
#pragma omp simd reduction(max : largest)
    for (int64_t i = 0; i < n; ++i) largest = x[i] > largest ? x[i] : largest;   // (GCC vectorises this, not std::max)
    return largest;
}

// One row of weights from n raw scores, in place:  P_c = exp(S_c·inv_tau − shift)
template <class Real>
void exp_row(Real* S, Real inv_tau, Real shift, int64_t n) {
#pragma omp simd
    for (int64_t c = 0; c < n; ++c) S[c] = kernels::vector_exp(S[c] * inv_tau - shift);
}

// The same, returning Σ_c P_c. The sum is kept in 16 lanes (a vector of floats), added pairwise
// at the end: with `omp simd reduction` GCC adds up a vector's lanes one by one through memory
// at the end of every row, which cost a fifth of this loop at 128 keys.
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

// x rounded into x16 (n values) when the products run in bf16: a tile of P or dS as it is made.
template <class Real>
void round_tile(const Problem<Real>& p, const Real* x, kernels::bfloat16_bits* x16, int64_t n) {
    if constexpr (std::is_same_v<Real, float>)
        if (p.bf16) kernels::round_to_bfloat16(x, x16, n);
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
            const Real m_new = std::max(m[row], row_max(S_r, t.cols) * p.inv_tau);
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

// Forward of one query tile of head h, for `items` batch items from b0, over all the key tiles it
// can see:  after the last tile  O_i ← O_i / ℓ_i  and  L_i = m_i + log ℓ_i  (the row's logsumexp).
// A fully masked row (ℓ = 0) outputs 0 and saves L = −∞.
template <class Real>
void forward_query_tile(const Problem<Real>& p, int64_t b0, int64_t items, int64_t h, int64_t i0, const HeadLayout<Real*>& O,
                        Real* L, Scratch<Real>& scratch) {
    const int64_t rows = std::min(p.query_tile, p.T - i0);
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
        gemm_tile(p, {scratch.S.data(), scratch.P16.data()}, rows_of(p.V, b0, h / p.group, j0), O.row(b0, h, i0),
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

// Work is split over (query tile, run of batch items, head): each writes its own rows of O and L.
// Under a causal mask a later query tile sees more keys, so the tasks are handed out last query
// tile first: the ones left for the end, when threads run out of work, are the small ones.
template <class Real>
void forward(const Problem<Real>& p, int64_t batch, const HeadLayout<Real*>& O, Real* L) {
    const int64_t query_tiles = ceil_div(p.T, p.query_tile);
    const bool worth_threads = !p.reference && batch * p.H * p.T * p.S * p.D > kernels::kParallelMultiplyAdds;
    const int threads = worth_threads ? kernels::num_threads() : 1;
    const int64_t items = items_per_tile(p, batch, p.H * query_tiles, threads), runs = ceil_div(batch, items);
#pragma omp parallel num_threads(threads) if (worth_threads)
    {
        Scratch<Real> scratch(p, items);
#pragma omp for collapse(3) schedule(dynamic)
        for (int64_t tile = query_tiles - 1; tile >= 0; --tile)
            for (int64_t run = 0; run < runs; ++run)
                for (int64_t h = 0; h < p.H; ++h) {
                    const int64_t b0 = run * items;
                    forward_query_tile(p, b0, std::min(items, batch - b0), h, tile * p.query_tile, O, L, scratch);
                }
    }
}

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
    const int64_t kv_head = t.h / p.group;
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

// Zeroes rows [i0, i0 + rows) of head h, for `items` batch items from b0, of a gradient the tiles
// then add into. Each task clears exactly the rows it owns, so the gradient tensors need no
// zeroing pass of their own beforehand (a serial memset of 3 MiB per layer for a qkv gradient),
// and every row is first touched by the thread that sums into it.
template <class Real>
void zero_rows(const HeadLayout<Real*>& x, int64_t b0, int64_t items, int64_t h, int64_t i0, int64_t rows, int64_t D) {
    for (int64_t n = 0; n < items; ++n)
        for (int64_t i = i0; i < i0 + rows; ++i) std::fill_n(x.row(b0 + n, h, i), D, Real(0));
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

// Work is split over (run of batch items, key/value head): the query heads that share one
// key/value head run on one thread, one after another, key tiles outside and query tiles inside
// (FlashAttention-2's order), so each dK and dV is written by one thread only (no races), and each
// query head's dQ by the thread that owns its key/value head.
template <class Real>
void backward_by_heads(const Problem<Real>& p, const Backward<Real>& g, int64_t batch, int threads, int64_t items) {
    const int64_t kv_heads = p.H / p.group, runs = ceil_div(batch, items), owners = runs * kv_heads;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        Scratch<Real> scratch(p, items);
        std::vector<Real> delta(items * p.T);   // (items, T) Δ of the current query head
#pragma omp for schedule(dynamic)
        for (int64_t owner = 0; owner < owners; ++owner) {
            const int64_t b0 = (owner / kv_heads) * items, kv_head = owner % kv_heads, run_items = std::min(items, batch - b0);
            zero_rows(g.dK, b0, run_items, kv_head, 0, p.S, p.D);
            zero_rows(g.dV, b0, run_items, kv_head, 0, p.S, p.D);
            for (int64_t h = kv_head * p.group; h < (kv_head + 1) * p.group; ++h) {
                zero_rows(g.dQ, b0, run_items, h, 0, p.T, p.D);
                row_deltas(p, g, b0, run_items, h, delta.data());
                for (int64_t j0 = 0; j0 < p.S; j0 += p.key_tile) backward_key_tile(p, g, b0, run_items, h, j0, delta.data(), scratch);
            }
        }
    }
}

// With fewer (batch item, key/value head) owners than threads, the key tiles are shared out
// instead: a (batch item, key/value head, key tile) task writes its own rows of dK and dV, but
// every key tile adds into the same dQ rows, so each thread sums dQ in a buffer of its own
// (B, H, T, D), added up at the end. Memory stays O(T): one dQ per thread.
template <class Real>
void backward_by_key_tiles(const Problem<Real>& p, const Backward<Real>& g, int64_t batch, int threads) {
    const int64_t kv_heads = p.H / p.group, key_tiles = ceil_div(p.S, p.key_tile), tasks = batch * kv_heads * key_tiles;
    const int64_t dQ_size = batch * p.H * p.T * p.D;
    std::vector<Real> deltas(batch * p.H * p.T);                      // (B, H, T)
    std::vector<Real> dQ_of_thread(static_cast<std::size_t>(threads) * dQ_size, Real(0));   // (threads, B, H, T, D)
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int64_t bh = 0; bh < batch * p.H; ++bh) row_deltas(p, g, bh / p.H, 1, bh % p.H, deltas.data() + bh * p.T);
        Scratch<Real> scratch(p, 1);
        Backward<Real> mine = g;   // the same, but dQ summed in this thread's buffer
        mine.dQ = {dQ_of_thread.data() + omp_get_thread_num() * dQ_size, p.H * p.T * p.D, p.T * p.D, p.D};
#pragma omp for schedule(dynamic)
        for (int64_t task = 0; task < tasks; ++task) {
            const int64_t owner = task / key_tiles, j0 = (task % key_tiles) * p.key_tile;
            const int64_t b = owner / kv_heads, kv_head = owner % kv_heads;
            zero_rows(g.dK, b, 1, kv_head, j0, std::min(p.key_tile, p.S - j0), p.D);
            zero_rows(g.dV, b, 1, kv_head, j0, std::min(p.key_tile, p.S - j0), p.D);
            for (int64_t h = kv_head * p.group; h < (kv_head + 1) * p.group; ++h)
                backward_key_tile(p, mine, b, 1, h, j0, deltas.data() + (b * p.H + h) * p.T, scratch);
        }
        // dQ = Σ_threads dQ_thread, each row by one thread
#pragma omp for schedule(static)
        for (int64_t row = 0; row < batch * p.H * p.T; ++row) {
            const int64_t bh = row / p.T;
            Real* dQ_r = g.dQ.row(bh / p.H, bh % p.H, row % p.T);
            std::fill_n(dQ_r, p.D, Real(0));
            for (int thread = 0; thread < threads; ++thread) {
                const Real* part = dQ_of_thread.data() + thread * dQ_size + row * p.D;
#pragma omp simd
                for (int64_t d = 0; d < p.D; ++d) dQ_r[d] += part[d];
            }
        }
    }
}

template <class Real>
void backward(const Problem<Real>& p, const Backward<Real>& g, int64_t batch) {
    const int64_t kv_heads = p.H / p.group;
    const bool worth_threads = !p.reference && batch * p.H * p.T * p.S * p.D > kernels::kParallelMultiplyAdds;
    const int threads = worth_threads ? kernels::num_threads() : 1;
    if (threads > 1 && batch * kv_heads < threads && p.S > p.key_tile) {
        backward_by_key_tiles(p, g, batch, threads);
        return;
    }
    backward_by_heads(p, g, batch, threads, items_per_tile(p, batch, kv_heads, threads));
}

// ── checks and setup ────────────────────────────────────────────────────
// The sizes of one attention problem: B, H query heads and H_kv key/value heads of width D, T
// queries, S keys.
struct Sizes {
    int64_t B, H, H_kv, T, S, D;
};

// The mask and option rules every entry point shares; `where` names the op and its shapes.
void check_options(const std::string& where, const Sizes& n, const TiledAttentionOptions& options) {
    const Tensor& mask = options.key_padding_mask;
    if (mask.defined() && mask.shape() != Shape{n.B, n.S})
        throw ShapeError(where + ": key_padding_mask " + to_string(mask.shape()) + " should be (B, S) = " + to_string(Shape{n.B, n.S}));
    const Tensor& pattern = options.pattern_mask;
    if (pattern.defined() && pattern.shape() != Shape{n.T, n.S})
        throw ShapeError(where + ": pattern_mask " + to_string(pattern.shape()) + " should be (T, S) = " + to_string(Shape{n.T, n.S}));
    if (options.query_tile < 1 || options.key_tile < 1)
        throw ValueError(where + ": tile sizes must be ≥ 1, got " + std::to_string(options.query_tile) + " and " +
                         std::to_string(options.key_tile));
    if (options.temperature && !(*options.temperature > 0))
        throw ValueError(where + ": temperature must be > 0, got " + std::to_string(*options.temperature));
}

std::string shapes_text(const std::vector<std::pair<const char*, const Tensor*>>& named) {
    std::string text;
    for (const auto& [name, tensor] : named) text += (text.empty() ? "" : ", ") + std::string(name) + " " + to_string(tensor->shape());
    return text;
}

void check_same_dtype(const std::string& where, const std::vector<Tensor>& inputs) {
    for (const Tensor& x : inputs)
        if (x.dtype() != inputs.front().dtype()) throw ValueError(where + ": dtypes differ");
}

// Q (B, H, T, D), K and V (B, H, S, D): the heads-first entry point's sizes.
Sizes heads_first_sizes(const char* op, const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    const std::string where = std::string(op) + ": " + shapes_text({{"Q", &Q}, {"K", &K}, {"V", &V}});
    if (Q.dim() != 4 || K.dim() != 4 || V.dim() != 4 || K.shape() != V.shape() || Q.size(0) != K.size(0) ||
        Q.size(1) != K.size(1) || Q.size(3) != K.size(3))
        throw ShapeError(where + ": expected Q (B, H, T, D), K and V (B, H, S, D)");
    check_same_dtype(where, {Q, K, V});
    const Sizes n{Q.size(0), Q.size(1), Q.size(1), Q.size(2), K.size(2), Q.size(3)};
    check_options(where, n, options);
    return n;
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

MaskBytes make_mask_bytes(const Sizes& n, const TiledAttentionOptions& options) {
    MaskBytes masks{mask_bytes(options.key_padding_mask), mask_bytes(options.pattern_mask)};
    if (masks.padding.empty()) masks.padding.assign(n.B * n.S, 0);
    return masks;
}

// Where an operand's heads lie, before its buffer is known: which of the op's inputs holds them
// (or, for the output, none) and the HeadLayout's column and strides.
struct HeadPlacement {
    std::size_t input;
    int64_t column, batch_stride, head_stride, row_stride;
    template <class Pointer>
    HeadLayout<Pointer> in(Pointer base) const { return {base + column, batch_stride, head_stride, row_stride}; }
};

// H heads of D values in a (B, H, rows, D) tensor, and in rows (B, rows, width) from column `column`.
HeadPlacement heads_first(std::size_t input, int64_t H, int64_t rows, int64_t D) { return {input, 0, H * rows * D, rows * D, D}; }
HeadPlacement heads_in_rows(std::size_t input, int64_t rows, int64_t width, int64_t column, int64_t D) {
    return {input, column, rows * width, D, width};
}

struct Placements {
    HeadPlacement Q, K, V, O;   // O's input index is unused: the output (and dO) has its own buffer
};

// Each (f32) tensor rounded to bf16 once, in its own layout (none in fp32).
using RoundedTensors = std::vector<RoundedCopy>;
RoundedTensors rounded_copies(const std::vector<Tensor>& tensors) {
    RoundedTensors rounded;
    for (const Tensor& x : tensors) rounded.emplace_back(x);
    return rounded;
}

// The heads `place` names: in tensors[place.input], and in its rounded copy if there is one.
template <class Real>
Heads<Real> heads_at(const HeadPlacement& place, const std::vector<Tensor>& tensors, const RoundedTensors& rounded) {
    if (rounded.empty()) return {place.in(tensors[place.input].data<Real>()), {}};
    return {place.in(tensors[place.input].data<Real>()), place.in(rounded[place.input].values())};
}

template <class Real>
Problem<Real> make_problem(const Sizes& n, const std::vector<Tensor>& inputs, const RoundedTensors& rounded, const Placements& at,
                           const MaskBytes& masks, const TiledAttentionOptions& options) {
    const double tau = options.temperature ? *options.temperature : std::sqrt(static_cast<double>(n.D));
    return Problem<Real>{heads_at<Real>(at.Q, inputs, rounded), heads_at<Real>(at.K, inputs, rounded),
                         heads_at<Real>(at.V, inputs, rounded), masks.padding.data(),
                         masks.pattern.empty() ? nullptr : masks.pattern.data(), n.H, n.H / n.H_kv, n.T, n.S, n.D,
                         static_cast<Real>(1.0 / tau), options.causal, options.query_tile, options.key_tile,
                         kernels::use_reference(), !rounded.empty()};
}

// The one op every entry point records: O (out_shape, its heads where at.O says) from the inputs
// that hold Q, K and V; the backward gives each input a gradient of its own shape and layout.
Tensor attention_on_placements(const char* op, const std::vector<Tensor>& inputs, const Sizes& n, const Placements& at,
                               const Shape& out_shape, const TiledAttentionOptions& options) {
    // With no query or no key a tile holds no scores, and items_per_tile would divide by that 0.
    if (n.B < 1 || n.T < 1 || n.S < 1)
        throw ShapeError(std::string(op) + ": " + std::to_string(n.B) + " items of " + std::to_string(n.T) + " queries and " +
                         std::to_string(n.S) + " keys: attention needs at least one item, one query and one key");
    const MaskBytes masks = make_mask_bytes(n, options);
    const DType dtype = inputs.front().dtype();
    Tensor O(out_shape, dtype);            // heads where at.O says
    Tensor L({n.B, n.H, n.T}, dtype);      // (B, H, T)
    // the inputs rounded for bf16 products (none in fp32), kept for the backward
    auto rounded = std::make_shared<const RoundedTensors>(products_in_bf16(dtype) ? rounded_copies(inputs) : RoundedTensors{});
    dispatch(dtype, [&](auto zero) {
        using Real = decltype(zero);
        forward(make_problem<Real>(n, inputs, *rounded, at, masks, options), n.B, at.O.in(O.data<Real>()), L.data<Real>());
    });
    return record(op, inputs, O, [inputs, rounded, n, at, O, L, masks, options](const Tensor& dO) -> Grads {
        Grads grads;
        // Not zeroed here: the kernel's tasks zero the rows they own (zero_rows), and the rows of
        // dQ, dK and dV together cover every value of every input.
        for (const Tensor& x : inputs) grads.emplace_back(x.shape(), x.dtype());
        const RoundedTensors dO_rounded = rounded->empty() ? RoundedTensors{} : rounded_copies({dO});
        dispatch(O.dtype(), [&](auto zero) {
            using Real = decltype(zero);
            const auto gradient = [&](const HeadPlacement& place) { return place.in(grads[place.input].data<Real>()); };
            const HeadPlacement dO_at{0, at.O.column, at.O.batch_stride, at.O.head_stride, at.O.row_stride};
            const Backward<Real> g{at.O.in(O.data<Real>()), heads_at<Real>(dO_at, {dO}, dO_rounded), L.data<Real>(),
                                   gradient(at.Q), gradient(at.K), gradient(at.V)};
            backward(make_problem<Real>(n, inputs, *rounded, at, masks, options), g, n.B);
        });
        return grads;
    });
}

}  // namespace

// ── tiled_attention ──  O = softmax(Q·Kᵀ/τ + M)·V, saving O and L = logsumexp per query row
// Backward: dQ, dK, dV tile by tile from Q, K, V, O, L and dO (see backward_tile).
Tensor tiled_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    const Sizes n = heads_first_sizes("tiled_attention", Q, K, V, options);
    const Placements at{heads_first(0, n.H, n.T, n.D), heads_first(1, n.H, n.S, n.D), heads_first(2, n.H, n.S, n.D),
                        heads_first(0, n.H, n.T, n.D)};
    return attention_on_placements("tiled_attention", {Q, K, V}, n, at, Q.shape(), options);
}

// ── tiled_self_attention ──  the same, every head read in place from the rows of one projection:
// qkv (B, T, (H + 2·H_kv)·D) = [Q heads | K heads | V heads] per row  →  O (B, T, H·D), heads side by side
Tensor tiled_self_attention(const Tensor& qkv, const AttentionHeads& heads, const TiledAttentionOptions& options) {
    const std::string where = "tiled_self_attention: qkv " + to_string(qkv.shape()) + ", " + std::to_string(heads.heads) +
                              " heads, " + std::to_string(heads.kv_heads) + " key/value heads";
    const int64_t head_columns = heads.heads + 2 * heads.kv_heads;
    if (qkv.dim() != 3 || heads.heads < 1 || heads.kv_heads < 1 || heads.heads % heads.kv_heads != 0 ||
        qkv.size(2) % head_columns != 0)
        throw ShapeError(where + ": expected qkv (B, T, (H + 2·H_kv)·D) with H a multiple of H_kv");
    const int64_t B = qkv.size(0), T = qkv.size(1), W = qkv.size(2), D = W / head_columns;
    const Sizes n{B, heads.heads, heads.kv_heads, T, T, D};
    check_options(where, n, options);
    const Placements at{heads_in_rows(0, T, W, 0, D), heads_in_rows(0, T, W, n.H * D, D),
                        heads_in_rows(0, T, W, (n.H + n.H_kv) * D, D), heads_in_rows(0, T, n.H * D, 0, D)};
    return attention_on_placements("tiled_self_attention", {qkv}, n, at, {B, T, n.H * D}, options);
}

// ── tiled_cross_attention ──  queries from q (B, T, H·D), keys and values in place from
// kv (B, S, 2·H_kv·D) = [K heads | V heads] per row  →  O (B, T, H·D)
Tensor tiled_cross_attention(const Tensor& q, const Tensor& kv, const AttentionHeads& heads, const TiledAttentionOptions& options) {
    const std::string where = "tiled_cross_attention: " + shapes_text({{"q", &q}, {"kv", &kv}}) + ", " +
                              std::to_string(heads.heads) + " heads, " + std::to_string(heads.kv_heads) + " key/value heads";
    if (q.dim() != 3 || kv.dim() != 3 || q.size(0) != kv.size(0) || heads.heads < 1 || heads.kv_heads < 1 ||
        heads.heads % heads.kv_heads != 0 || q.size(2) % heads.heads != 0 ||
        kv.size(2) != 2 * heads.kv_heads * (q.size(2) / heads.heads))
        throw ShapeError(where + ": expected q (B, T, H·D) and kv (B, S, 2·H_kv·D) with H a multiple of H_kv");
    check_same_dtype(where, {q, kv});
    const int64_t B = q.size(0), T = q.size(1), S = kv.size(1), D = q.size(2) / heads.heads;
    const Sizes n{B, heads.heads, heads.kv_heads, T, S, D};
    check_options(where, n, options);
    const int64_t kv_width = kv.size(2);
    const Placements at{heads_in_rows(0, T, n.H * D, 0, D), heads_in_rows(1, S, kv_width, 0, D),
                        heads_in_rows(1, S, kv_width, n.H_kv * D, D), heads_in_rows(0, T, n.H * D, 0, D)};
    return attention_on_placements("tiled_cross_attention", {q, kv}, n, at, {B, T, n.H * D}, options);
}

// ── composed_attention ──  the same formula from plain ops and the masks of masks.h
Tensor composed_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    heads_first_sizes("composed_attention", Q, K, V, options);
    const AttentionMask mask{.causal = options.causal, .key_padding = options.key_padding_mask,
                             .pattern = options.pattern_mask};
    const double tau = options.temperature ? *options.temperature : std::sqrt(static_cast<double>(Q.size(3)));
    return scaled_dot_product_attention(Q, K, V, mask, tau);   // (B, H, T, D)
}

}  // namespace tf
