// Attention inside an RNN decoder, one decoder step at a time (Bahdanau et al. 2015 §3.1:
// context_t = Attention(query = s_t, keys = H, values = H)). The keys are projected once per source
// sequence (precompute_keys), then every step only projects its query.
//   additive (Bahdanau):  score(s, h_j) = vᵀ tanh(W_q s + W_k h_j)
//   Luong "dot":          score(s, h_j) = sᵀ h_j        Luong "general":  score(s, h_j) = sᵀ W h_j
//   α = softmax_j(score), masked source positions get exactly 0;   context = Σ_j α_j h_j
#pragma once
#include <memory>

#include "layers/linear.h"

namespace tf {

struct AttentionContext {
    Tensor context;  // (B, Hv)   Σ_j α_j v_j
    Tensor weights;  // (B, S)    α, each row sums to 1 (0 on masked positions)
};

// What an RNN decoder needs of an attention: keys projected once per source sequence, then one
// read per decoder step. The scorers below implement it; decoder_attention_registry.h names them.
class DecoderStepAttention : public Module {
public:
    // keys H (B, S, Hk) → whatever attend() compares the query with, (B, S, ·). Once per sequence.
    virtual Tensor precompute_keys(const Tensor& keys) const = 0;
    // query s (B, Hq), projected keys, values (B, S, Hv), key_padding_mask (B, S) with 1 = padding
    // (or undefined) → context (B, Hv) and weights (B, S).
    virtual AttentionContext attend(const Tensor& query, const Tensor& projected_keys, const Tensor& values,
                                    const Tensor& key_padding_mask = Tensor()) const = 0;
};

// W_q (A, Hq) without bias, W_k (A, Hk) with bias, v (1, A) without bias: the PyTorch peer's
// BahdanauGRU names them W_a, U_a, v_a (bench/torch_peer.py), so W_q.weight = W_a.weight, W_k.* = U_a.*, v.weight = v_a.weight.
class AdditiveAttention : public DecoderStepAttention {
public:
    AdditiveAttention(int64_t query_size, int64_t key_size, int64_t attention_size, const InitScheme& init, Rng& rng,
                      DType dtype = DType::f32);
    // W_k h_j + b_k for every source position: keys H (B, S, Hk) → (B, S, A).
    Tensor precompute_keys(const Tensor& keys) const override;
    AttentionContext attend(const Tensor& query, const Tensor& projected_keys, const Tensor& values,
                            const Tensor& key_padding_mask = Tensor()) const override;

private:
    std::shared_ptr<Linear> W_q_, W_k_, v_;
};

class LuongAttention : public DecoderStepAttention {
public:
    enum class Score { dot, general };
    // "dot" has no parameters and needs query_size = key_size; "general" has W (Hq, Hk), no bias.
    LuongAttention(Score score, int64_t query_size, int64_t key_size, const InitScheme& init, Rng& rng,
                   DType dtype = DType::f32);
    // dot: the keys as they are; general: W h_j, keys (B, S, Hk) → (B, S, Hq).
    Tensor precompute_keys(const Tensor& keys) const override;
    AttentionContext attend(const Tensor& query, const Tensor& projected_keys, const Tensor& values,
                            const Tensor& key_padding_mask = Tensor()) const override;

private:
    Score score_;
    int64_t query_size_, key_size_;
    std::shared_ptr<Linear> W_;  // null for "dot"
};

}  // namespace tf
