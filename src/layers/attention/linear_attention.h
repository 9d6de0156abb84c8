// Linear attention (Katharopoulos et al. 2020): softmax(q·k) replaced by a feature-map kernel
// φ(q)·φ(k), φ = elu + 1 > 0, so the sum over keys factors and costs O(T·D²) instead of O(T²·D):
//   out_t = φ(q_t)ᵀ (Σ_j φ(k_j) v_jᵀ) / (φ(q_t)ᵀ Σ_j φ(k_j) + ε)
// Causal attention keeps the same form with prefix sums over j ≤ t + (S − T).
#pragma once
#include "autograd/tensor.h"

namespace tf {

struct LinearAttentionOptions {
    bool causal = false;           // query t sees keys j ≤ t + (S − T): bottom-right, as masks.h
    Tensor key_padding_mask{};     // (B, S), nonzero = padding: φ(k_j) is zeroed there
    double epsilon = 1e-6;         // ε in the normaliser, so a row with no visible key gives 0, not 0/0
};

// φ(x) = elu(x) + 1 = x + 1 for x > 0, exp(x) for x ≤ 0: positive, so implied weights are ≥ 0.
Tensor elu_feature_map(const Tensor& x);

// Q: (B, H, T, D)   K: (B, H, S, D)   V: (B, H, S, E)   → (B, H, T, E). Composed from ops, but for
// the causal prefix sums (causal_prefix_attention).
Tensor linear_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const LinearAttentionOptions& options = {});

// A fused op: y_t = Σ_{j≤t} (q_t·k_j) v_j = q_tᵀ S_t with the running state S_t = Σ_{j≤t} k_j v_jᵀ.
// Q, K: (B, H, T, D)   V: (B, H, T, E)   y: (B, H, T, E). O(T·D·E) time and O(D·E) state per head.
// linear_attention calls it with Q = φ(Q), K = φ(K); with V = 1 it gives the normaliser.
Tensor causal_prefix_attention(const Tensor& Q, const Tensor& K, const Tensor& V);

}  // namespace tf
