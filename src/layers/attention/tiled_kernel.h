// What the tiled attention kernel (tiled_kernel.cpp) reads (Problem) and, backward, reads and
// writes (Backward), and the tile loops the work split (tiled_work_split.cpp) hands to threads.
// f32 and f64.
#pragma once
#include <cstdint>

#include "layers/attention/grouped_heads.h"
#include "layers/attention/tiled_layout.h"

namespace tf::tiled {

// What the tile loops read: the heads of Q (H of them), K and V (H_kv = H / group), and the
// masking rule. Query head h reads key/value head key_value_head(p, h).
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

// The key/value head that query head h reads: ⌊h·H_kv / H⌋ (layers/attention/grouped_heads.h).
template <class Real>
int64_t key_value_head(const Problem<Real>& p, int64_t query_head) {
    return kv_head_of(query_head, p.H, p.H / p.group);
}

template <class Real>
struct Scratch;   // one thread's tile buffers (tiled_work_split.h)

// Forward of query rows [i0, i0 + query_tile) of query head h, for `items` batch items from b0:
// writes those rows of O and their logsumexps L (B·H, T).
template <class Real>
void forward_query_tile(const Problem<Real>& p, int64_t b0, int64_t items, int64_t h, int64_t i0, const HeadLayout<Real*>& O,
                        Real* L, Scratch<Real>& scratch);

// Δ_i = Σ_d dO_id·O_id for the T query rows of query head h, for `items` batch items from b0.
template <class Real>
void row_deltas(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, Real* delta);

// Backward of every query tile of query head h against key tile j0, for `items` batch items from
// b0: adds into their rows of dQ, dK and dV.
template <class Real>
void backward_key_tile(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, int64_t j0,
                       const Real* delta, Scratch<Real>& scratch);

}  // namespace tf::tiled
