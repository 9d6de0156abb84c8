// Transformer encoder and decoder blocks: attention and a position-wise FFN, each wrapped in a
// residual connection with a norm N (layer norm unless "norm" names another of the norm table,
// layers/norm_registry.h), in either placement:
//   pre-LN  (norm_first = true):   x ← x + dropout(f(N(x)))
//   post-LN (norm_first = false):  x ← N(x + dropout(f(x)))         (PyTorch nn.Transformer's default)
// Parameter names follow PyTorch's nn.TransformerEncoderLayer/DecoderLayer: self_attn, norm1..3;
// its multihead_attn is called cross_attn here, and linear1/linear2 live inside ffn (ffn.linear1.weight).
#pragma once
#include <memory>
#include <string>

#include "layers/attention/multi_head_attention.h"
#include "layers/feed_forward.h"
#include "layers/norm_registry.h"

namespace tf {

struct TransformerBlockOptions {
    MultiHeadAttentionOptions attention{};  // d_model, heads, …; its dropout is the one on attention weights
    int64_t ffn_hidden = 0;               // the FFN's inner width; 0 means 4·d_model
    // Sublayers chosen by name from the layer registry, built at width d_model: the feed-forward
    // ({"type": "swiglu"}; default the built-in FeedForward(ffn_hidden, activation, dropout)) and the
    // self-attention ({"type": "alibi_attention"}; default MultiHeadAttention(attention)).
    LayerChoice ffn{};
    LayerChoice self_attention{};
    Activation activation = Activation::relu;
    double dropout = 0.0;                 // on each sublayer's output and inside the FFN
    bool norm_first = false;              // pre-LN if true, post-LN if false
    std::string norm = kDefaultNorm;      // a name of the norm table
    double norm_eps = 1e-5;
};

// Encoder block:  x ← sublayer(x, self_attn);  x ← sublayer(x, ffn).
// Self-attention follows the context (padding mask; causal if context.causal, which makes this the
// block of a decoder-only language model); context.memory is ignored.
class TransformerEncoderBlock : public SequenceLayer {
public:
    TransformerEncoderBlock(const TransformerBlockOptions& options, std::shared_ptr<Rng> dropout_rng,
                            const InitScheme& init, Rng& rng, DType dtype = DType::f32);
    Tensor forward(const Tensor& x, const SequenceContext& context) override;  // (B, T, C) → (B, T, C)
    // Decoding: the sublayers' steps joined by the same residual rule; a cache per sublayer.
    StepMode step_mode() const override;
    std::unique_ptr<StepCache> make_step_cache() const override;
    Tensor forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) override;
    // Keys: the attention keys of multi_head_attention (attention_dropout for its dropout, default
    // `dropout`), ffn_hidden, activation, dropout, norm_first, norm, norm_eps, and the layer-registry
    // entries ffn ({"type": "swiglu"}) and self_attention ({"type": "alibi_attention"}).
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

private:
    bool norm_first_;
    std::shared_ptr<SequenceLayer> self_attn_, ffn_;
    std::shared_ptr<Norm> norm1_, norm2_;
    std::shared_ptr<Dropout> dropout_;
};

// Decoder block:  x ← sublayer(x, causal self_attn);  x ← sublayer(x, cross_attn over memory);
// x ← sublayer(x, ffn). Needs context.memory (B, S, C); hides context.memory_padding_mask's keys.
// Cross-attention uses the same heads, bias, temperature and dropout as self-attention, with a full pattern.
class TransformerDecoderBlock : public SequenceLayer {
public:
    TransformerDecoderBlock(const TransformerBlockOptions& options, std::shared_ptr<Rng> dropout_rng,
                            const InitScheme& init, Rng& rng, DType dtype = DType::f32);
    Tensor forward(const Tensor& x, const SequenceContext& context) override;  // (B, T, C) → (B, T, C)
    // Decoding: the sublayers' steps joined by the same residual rule; a cache per sublayer.
    StepMode step_mode() const override;
    std::unique_ptr<StepCache> make_step_cache() const override;
    Tensor forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) override;
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

private:
    bool norm_first_;
    std::shared_ptr<SequenceLayer> self_attn_;
    std::shared_ptr<MultiHeadAttention> cross_attn_;
    std::shared_ptr<SequenceLayer> ffn_;
    std::shared_ptr<Norm> norm1_, norm2_, norm3_;
    std::shared_ptr<Dropout> dropout_;
};

}  // namespace tf
