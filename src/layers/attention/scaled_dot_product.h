// Scaled dot-product attention (Vaswani et al. 2017 §3.2.1), composed of ops only — the tape
// differentiates it, there is no hand-written backward:
//   Attention(Q, K, V) = softmax(mask(Q·Kᵀ / τ)) · V        τ = √d_k unless given
// Masked scores become −∞, so hidden keys get exactly zero weight and zero gradient; a query that
// sees no key at all gets a zero output row (the softmax op turns an all −∞ row into zeros).
//
// Grouped queries (GQA, Ainslie et al. 2023; MQA, Shazeer 2019): Q may have H heads on axis −3
// while K and V have H_kv, H a multiple of H_kv; query head h then reads key/value head
// ⌊h / (H/H_kv)⌋. No K/V copy is made: the G = H/H_kv query heads of a group are stacked as G·T
// rows against their one shared K.
#pragma once
#include <optional>

#include "autograd/tensor.h"
#include "layers/attention/masks.h"

namespace tf {

// Q: (…, H, T, D)  K: (…, H_kv, S, D)  V: (…, H_kv, S, Dv)  →  (…, H, T, Dv)      (rank-2 Q, K, V: no heads)
// weights_out, if given, receives the attention weights A = softmax(…): (…, H, T, S), on the tape.
Tensor scaled_dot_product_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask = {},
                                    std::optional<double> temperature = std::nullopt, Tensor* weights_out = nullptr);

// The two halves, for callers that act between them (multi-head attention's dropout on A).
// A = softmax(mask(Q·Kᵀ / τ))      Q: (…, H, T, D)  K: (…, H_kv, S, D)  →  A: (…, H, T, S)
// Kᵀ is a transpose flag of the matmul, never a copy.
Tensor attention_weights(const Tensor& Q, const Tensor& K, const AttentionMask& mask,
                         std::optional<double> temperature = std::nullopt);

// O = A·V      A: (…, H, T, S)  V: (…, H_kv, S, Dv)  →  O: (…, H, T, Dv)
Tensor attend(const Tensor& weights, const Tensor& V);

}  // namespace tf
