// The additive (Bahdanau et al. 2015 §3.1) scores of one decoder step as one fused op:
//   e_bj = Σ_a v_a · tanh(K_bja + q_ba)
// K (B, S, A): the keys projected once per sequence (W_k h_j + b_k); q (B, A): this step's projected
// query (W_q s); v (1, A): the score vector. AdditiveAttention composes the same formula from ops
// (add, tanh, linear) on the reference path; this op is its fast path. Why fused: an RNN decoder
// scores every source position at every step, and composed that is five passes over (B, S, A)
// numbers and as many thread wake-ups per step (add, tanh, and the backward's product, tanh
// derivative and broadcast sum); fused it is one pass forward and one backward.
#pragma once
#include "autograd/tensor.h"

namespace tf {

// keys (B, S, A), query (B, A), v (1, A) → scores (B, S). Backward (with H = tanh(K + q) kept):
//   G_bja = de_bj · v_a · (1 − H_bja²)     dK = G,   dq_ba = Σ_j G_bja,   dv_a = Σ_b Σ_j de_bj · H_bja
Tensor additive_scores(const Tensor& keys, const Tensor& query, const Tensor& v);

}  // namespace tf
