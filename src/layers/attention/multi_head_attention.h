// Multi-head attention (seed 000 §4, seed 003 Def. 6.1), with grouped-query (GQA) and multi-query
// (MQA) variants (seed 000 §9):
//   MultiHead(X) = Concat(head_1 … head_H)·W_oᵀ + b_o,   head_h = Attention(X·W_q,hᵀ, M·W_k,gᵀ, M·W_v,gᵀ)
// M = X for self-attention, M = context.memory (the encoder output) for cross-attention (seed 000 §7);
// query head h reads key/value head g = ⌊h·H_kv / H⌋. kv_heads = heads is plain MHA, 1 is MQA.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "layers/attention/masks.h"
#include "layers/dropout.h"
#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

struct MultiHeadAttentionOptions {
    int64_t d_model = 0;   // C
    int64_t heads = 1;     // H; d_k = C / H
    int64_t kv_heads = 0;  // H_kv, dividing H; 0 means H (plain multi-head attention)
    bool bias = true;      // biases of the four projections
    // Which keys each query may see besides the causal/padding masks:
    // "full", "sliding_window" (window), or "strided" (window, stride, global_tokens); see masks.h.
    std::string pattern = "full";
    int64_t window = 0;
    int64_t stride = 0;
    int64_t global_tokens = 0;
    std::optional<double> temperature{};  // τ; default √d_k
    double dropout = 0.0;                 // on the attention weights, while training
};

class MultiHeadAttention : public SequenceLayer {
public:
    MultiHeadAttention(const MultiHeadAttentionOptions& options, std::shared_ptr<Rng> dropout_rng,
                       const InitScheme& init, Rng& rng, DType dtype = DType::f32);

    // x: (B, T, C) → (B, T, C). Self-attention unless context.memory (B, S, C) is defined; then
    // cross-attention over it, hiding context.memory_padding_mask, never causal. Self-attention
    // hides context.padding_mask's keys and, if context.causal, the future.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;

    // Keys: d_model (default: the model width; must equal it), heads, kv_heads, bias, pattern,
    // window, stride, global_tokens, temperature, dropout.
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);
    // Reads those keys into options (shared with the transformer blocks, whose attention dropout
    // sits under another key); errors name the JSON path.
    static MultiHeadAttentionOptions options_from_config(config::JsonReader& config, const LayerBuildContext& build,
                                                         const std::string& dropout_key, double dropout_default);

    // With keep on, each forward stores its attention weights A (B, H, T, S), before dropout and
    // detached from the tape, for analysis; off by default (it holds T·S numbers per head).
    void set_keep_weights(bool keep) { keep_weights_ = keep; }
    const Tensor& last_weights() const { return last_weights_; }  // undefined until kept
    // With keep on, also the heads' queries (B, H, T, D) and keys (B, H_kv, S, D), for checking the
    // scale of q·k on a trained model (seed 000 §2.3).
    const Tensor& last_queries() const { return last_queries_; }
    const Tensor& last_keys() const { return last_keys_; }

    const MultiHeadAttentionOptions& options() const { return options_; }
    // τ is multiplied by `scale` (the temperature curriculum, seed 003 §13.3); 1 = as configured.
    void set_temperature_scale(double scale) { temperature_scale_ = scale; }

private:
    Tensor split_heads(const Tensor& x, int64_t heads) const;
    Tensor merge_heads(const Tensor& x) const;
    AttentionMask mask_for(const SequenceContext& context, bool cross, int64_t T, int64_t S) const;

    MultiHeadAttentionOptions options_;
    int64_t head_width_;  // D = d_k = C / H
    std::shared_ptr<Linear> q_proj_, k_proj_, v_proj_, o_proj_;
    std::shared_ptr<Dropout> dropout_;
    bool keep_weights_ = false;
    Tensor last_weights_, last_queries_, last_keys_;
    double temperature_scale_ = 1.0;
};

}  // namespace tf
