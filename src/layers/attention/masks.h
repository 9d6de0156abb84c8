// Attention masks: which keys a query may not see. Every builder returns a 0/1 f32 tensor with
// 1 = hidden, ready for masked_fill(scores, mask, −∞) (Vaswani et al. 2017 §3.2.3: hidden scores
// become −∞, so after the softmax they get exactly zero weight). Query i of T sits at key position
// i + (S − T), so every pattern also works when the keys extend further back than the queries (S > T).
#pragma once
#include <cstdint>

#include "autograd/tensor.h"

namespace tf {

// Causal (Vaswani et al. 2017 §3.2.3): key j hidden from query i when j > i + (S − T).     → (T, S)
Tensor causal_mask(int64_t T, int64_t S);

// Key padding: padding (B, S) with 1 at padded keys → (B, 1, 1, S), broadcasting over heads and queries.
Tensor padding_mask_to_keys(const Tensor& padding);

// Local attention of width w (Beltagy et al. 2020), with p = i + (S − T) the query's key position:
//   non-causal: key j hidden when |p − j| > w/2           (w/2 keys either side, real division)
//   causal:     key j hidden unless p − w < j ≤ p          (the w most recent keys, itself included)   → (T, S)
Tensor sliding_window_mask(int64_t T, int64_t S, int64_t window, bool causal);

// Strided sparse attention: local window + strided + global tokens, as in the Sparse Transformer
// (Child et al. 2019) and Longformer (Beltagy et al. 2020). With p = i + (S − T), key j is VISIBLE
// to query i when any holds:
//   |p − j| ≤ w/2                      the local window (as sliding_window_mask, non-causal)
//   (p − j) mod stride = 0             every stride-th key counted back (and forward) from the query
//   j < g                              the first g keys are global: every query sees them
//   p < g                              and the first g positions see every key
// and hidden otherwise.   → (T, S).   Combine with causal_mask for an autoregressive version.
Tensor strided_sparse_mask(int64_t T, int64_t S, int64_t local_window, int64_t stride, int64_t global_tokens);

// Logical or of two masks (broadcasting): hidden where either hides. An undefined operand means
// "nothing hidden", so the other is returned as is.
Tensor mask_or(const Tensor& a, const Tensor& b);

// What SDPA hides, in parts that are cheap to state; combined into one tensor by combined_mask.
struct AttentionMask {
    bool causal = false;  // causal_mask(T, S)
    Tensor key_padding{};  // (B, S), 1 = padded key; or undefined
    Tensor pattern{};      // any 0/1 tensor broadcastable to the scores (…, T, S); or undefined
};

// The single mask for scores of shape (B, …, T, S) (rank ≥ 2): causal ∨ key padding ∨ pattern,
// broadcastable to the scores, or undefined when nothing is hidden. Throws ShapeError if the key
// padding is not (B, S).
Tensor combined_mask(const AttentionMask& mask, const Shape& scores_shape);

}  // namespace tf
