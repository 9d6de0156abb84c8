// What the tiled attention kernel reads (Problem) and, backward, reads and writes (Backward), and
// each thread's tile buffers (Scratch): the types the kernel (tiled_kernel.h), its bf16 products
// (tiled_bf16.h) and the work split (tiled_work_split.h) share. f32 and f64.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "autograd/kernels/bfloat16.h"
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

}  // namespace tf::tiled
