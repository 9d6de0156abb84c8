// Transformer blocks: sublayers joined by one residual rule, pre-LN or post-LN.
#include "layers/transformer_block.h"

#include <limits>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "layers/registry.h"

namespace tf {

namespace {

// pre-LN:  x + dropout(f(N(x)))        post-LN:  N(x + dropout(f(x))), the sum and its norm in one pass
template <class Sublayer>
Tensor residual(bool norm_first, const Tensor& x, const Norm& norm, const Dropout& dropout, Sublayer f) {
    if (norm_first) return x + dropout(f(norm(x)));
    return norm.of_sum(x, dropout(f(x)));
}

int64_t ffn_hidden_of(const TransformerBlockOptions& options) {
    return options.ffn_hidden > 0 ? options.ffn_hidden : 4 * options.attention.d_model;
}

// What a block builds its sublayers with.
struct SublayerBuild {
    const TransformerBlockOptions& options;
    std::shared_ptr<Rng> dropout_rng;
    const InitScheme& init;
    Rng& rng;
    DType dtype;

    std::shared_ptr<SequenceLayer> chosen(const LayerChoice& choice) const {
        const LayerBuildContext build{.width = options.attention.d_model, .init_rng = &rng, .dropout_rng = dropout_rng,
                                      .init = init, .dtype = dtype};
        return choice.create(build);
    }
    // The chosen self-attention, or the built-in MultiHeadAttention.
    std::shared_ptr<SequenceLayer> self_attention() const {
        if (options.self_attention.chosen()) return chosen(options.self_attention);
        return std::make_shared<MultiHeadAttention>(options.attention, dropout_rng, init, rng, dtype);
    }
    // The block's norm, named in the norm table, over width d_model.
    std::shared_ptr<Norm> norm() const {
        return norm_type(options.norm).make(options.attention.d_model, options.norm_eps, dtype);
    }
    // The chosen feed-forward, or the built-in FeedForward.
    std::shared_ptr<SequenceLayer> ffn() const {
        if (options.ffn.chosen()) return chosen(options.ffn);
        return std::make_shared<FeedForward>(options.attention.d_model, ffn_hidden_of(options), options.activation,
                                             options.dropout, dropout_rng, init, rng, dtype);
    }
};

// Cross-attention: the self-attention's heads, kernel and projections, every memory position
// visible and no rotary positions (queries and memory are not positions on one axis).
MultiHeadAttentionOptions cross_attention_options(MultiHeadAttentionOptions options) {
    options.pattern = AttentionPattern::full;
    options.window = options.stride = options.global_tokens = 0;
    options.rotary_base.reset();
    return options;
}

TransformerBlockOptions block_options_from_config(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("transformer block from_config: the build context has no init_rng");
    TransformerBlockOptions o;
    o.dropout = config.number("dropout", 0.0, 0.0, 0.999);
    o.attention = MultiHeadAttention::options_from_config(config, build, "attention_dropout", o.dropout);
    o.ffn_hidden = config.integer("ffn_hidden", 4 * o.attention.d_model, {.min = 1});
    o.activation = config.choice("activation", Activation::relu);
    // Sublayers come from the registry that builds this block.
    o.ffn = LayerChoice::read(config, "ffn", build.registry);
    o.self_attention = LayerChoice::read(config, "self_attention", build.registry);
    o.norm_first = config.boolean("norm_first", false);
    o.norm = config.choice("norm", o.norm, norm_names());
    o.norm_eps = config.number("norm_eps", 1e-5, std::numeric_limits<double>::min(), 1.0);
    return o;
}

}  // namespace

TransformerEncoderBlock::TransformerEncoderBlock(const TransformerBlockOptions& options, std::shared_ptr<Rng> dropout_rng,
                                                 const InitScheme& init, Rng& rng, DType dtype)
    : norm_first_(options.norm_first) {
    const SublayerBuild sublayers{options, dropout_rng, init, rng, dtype};
    self_attn_ = register_module("self_attn", sublayers.self_attention());
    ffn_ = register_module("ffn", sublayers.ffn());
    norm1_ = register_module("norm1", sublayers.norm());
    norm2_ = register_module("norm2", sublayers.norm());
    dropout_ = register_module("dropout", std::make_shared<Dropout>(options.dropout, dropout_rng));
}

Tensor TransformerEncoderBlock::forward(const Tensor& x, const SequenceContext& context) {
    SequenceContext self_context = context;
    self_context.memory = Tensor();  // an encoder block attends to its own input only
    const Tensor h = residual(norm_first_, x, *norm1_, *dropout_,
                              [&](const Tensor& y) { return (*self_attn_)(y, self_context); });  // (B, T, C)
    return residual(norm_first_, h, *norm2_, *dropout_, [&](const Tensor& y) { return (*ffn_)(y, context); });
}

StepMode TransformerEncoderBlock::step_mode() const { return weakest_step_mode({self_attn_->step_mode(), ffn_->step_mode()}); }

std::unique_ptr<StepCache> TransformerEncoderBlock::make_step_cache() const {
    auto caches = std::make_unique<StepCaches>();
    caches->parts.push_back(self_attn_->make_step_cache());
    caches->parts.push_back(ffn_->make_step_cache());
    return caches;
}

Tensor TransformerEncoderBlock::forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) {
    StepCaches& parts = step_cache_of<StepCaches>(cache, name());
    SequenceContext self_context = context;
    self_context.memory = Tensor();
    const Tensor h = residual(norm_first_, x_new, *norm1_, *dropout_,
                              [&](const Tensor& y) { return self_attn_->step(y, self_context, parts.parts[0].get()); });
    return residual(norm_first_, h, *norm2_, *dropout_, [&](const Tensor& y) { return ffn_->step(y, context, parts.parts[1].get()); });
}

std::shared_ptr<SequenceLayer> TransformerEncoderBlock::from_config(config::JsonReader& config,
                                                                     const LayerBuildContext& build) {
    const TransformerBlockOptions options = block_options_from_config(config, build);
    return std::make_shared<TransformerEncoderBlock>(options, build.dropout_rng, build.init, *build.init_rng, build.dtype);
}

TransformerDecoderBlock::TransformerDecoderBlock(const TransformerBlockOptions& options, std::shared_ptr<Rng> dropout_rng,
                                                 const InitScheme& init, Rng& rng, DType dtype)
    : norm_first_(options.norm_first) {
    const SublayerBuild sublayers{options, dropout_rng, init, rng, dtype};
    self_attn_ = register_module("self_attn", sublayers.self_attention());
    cross_attn_ = register_module("cross_attn", std::make_shared<MultiHeadAttention>(
                                                    cross_attention_options(options.attention), dropout_rng, init, rng, dtype));
    ffn_ = register_module("ffn", sublayers.ffn());
    norm1_ = register_module("norm1", sublayers.norm());
    norm2_ = register_module("norm2", sublayers.norm());
    norm3_ = register_module("norm3", sublayers.norm());
    dropout_ = register_module("dropout", std::make_shared<Dropout>(options.dropout, dropout_rng));
}

Tensor TransformerDecoderBlock::forward(const Tensor& x, const SequenceContext& context) {
    if (!context.memory.defined())
        throw ValueError("TransformerDecoderBlock: needs context.memory, the encoder output (B, S, C)");
    SequenceContext self_context = context;  // causal self-attention over the target
    self_context.memory = Tensor();
    self_context.causal = true;
    // queries from the target, keys and values from the memory; the same observer
    const SequenceContext cross_context{.memory = context.memory, .memory_padding_mask = context.memory_padding_mask,
                                        .side = context.side, .observer = context.observer};
    const Tensor h1 = residual(norm_first_, x, *norm1_, *dropout_,
                               [&](const Tensor& y) { return (*self_attn_)(y, self_context); });   // (B, T, C)
    const Tensor h2 = residual(norm_first_, h1, *norm2_, *dropout_,
                               [&](const Tensor& y) { return (*cross_attn_)(y, cross_context); });  // (B, T, C)
    return residual(norm_first_, h2, *norm3_, *dropout_, [&](const Tensor& y) { return (*ffn_)(y, context); });
}

StepMode TransformerDecoderBlock::step_mode() const {
    return weakest_step_mode({self_attn_->step_mode(), cross_attn_->step_mode(), ffn_->step_mode()});
}

std::unique_ptr<StepCache> TransformerDecoderBlock::make_step_cache() const {
    auto caches = std::make_unique<StepCaches>();
    for (const SequenceLayer* sublayer : std::initializer_list<const SequenceLayer*>{self_attn_.get(), cross_attn_.get(), ffn_.get()})
        caches->parts.push_back(sublayer->make_step_cache());
    return caches;
}

Tensor TransformerDecoderBlock::forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) {
    if (!context.memory.defined())
        throw ValueError("TransformerDecoderBlock: needs context.memory, the encoder output (B, S, C)");
    StepCaches& parts = step_cache_of<StepCaches>(cache, name());
    SequenceContext self_context = context;
    self_context.memory = Tensor();
    self_context.causal = true;
    const SequenceContext cross_context{.memory = context.memory, .memory_padding_mask = context.memory_padding_mask,
                                        .side = context.side, .observer = context.observer};
    const Tensor h1 = residual(norm_first_, x_new, *norm1_, *dropout_,
                               [&](const Tensor& y) { return self_attn_->step(y, self_context, parts.parts[0].get()); });
    const Tensor h2 = residual(norm_first_, h1, *norm2_, *dropout_,
                               [&](const Tensor& y) { return cross_attn_->step(y, cross_context, parts.parts[1].get()); });
    return residual(norm_first_, h2, *norm3_, *dropout_, [&](const Tensor& y) { return ffn_->step(y, context, parts.parts[2].get()); });
}

std::shared_ptr<SequenceLayer> TransformerDecoderBlock::from_config(config::JsonReader& config,
                                                                     const LayerBuildContext& build) {
    const TransformerBlockOptions options = block_options_from_config(config, build);
    return std::make_shared<TransformerDecoderBlock>(options, build.dropout_rng, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
