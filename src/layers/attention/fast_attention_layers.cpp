// The two config-nameable attention layers: shared projections and heads, then the fused kernel.
#include "layers/attention/fast_attention_layers.h"

#include <algorithm>
#include <tuple>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/tiled_attention.h"
#include "layers/rotary.h"

namespace tf {

ProjectedSelfAttention::ProjectedSelfAttention(int64_t width, int64_t heads, bool bias, const InitScheme& init,
                                               Rng& rng, DType dtype)
    : heads_(heads) {
    if (heads < 1 || width % heads != 0)
        throw ValueError("attention: width " + std::to_string(width) + " is not divisible into " + std::to_string(heads) +
                         " heads");
    q_proj_ = register_module("q_proj", std::make_shared<Linear>(width, width, bias, init, rng, dtype));
    k_proj_ = register_module("k_proj", std::make_shared<Linear>(width, width, bias, init, rng, dtype));
    v_proj_ = register_module("v_proj", std::make_shared<Linear>(width, width, bias, init, rng, dtype));
    o_proj_ = register_module("o_proj", std::make_shared<Linear>(width, width, bias, init, rng, dtype));
}

Tensor ProjectedSelfAttention::split_heads(const Tensor& x) const {
    return transpose(reshape(x, {x.size(0), x.size(1), heads_, x.size(2) / heads_}), 1, 2);   // (B, H, T, D)
}

Tensor ProjectedSelfAttention::merge_heads(const Tensor& x) const {
    return reshape(transpose(x, 1, 2), {x.size(0), x.size(2), x.size(1) * x.size(3)});   // (B, T, C)
}

// Attention(X) = o_proj(Concat(head_1 … head_H)),   head_h = attend(X·W_q_h, X·W_k_h, X·W_v_h)
Tensor ProjectedSelfAttention::forward(const Tensor& x, const SequenceContext& context) {
    if (x.dim() != 3) throw ShapeError("attention: x " + to_string(x.shape()) + ": expected (B, T, C)");
    const Tensor Q = split_heads((*q_proj_)(x));   // (B, H, T, D)
    const Tensor K = split_heads((*k_proj_)(x));   // (B, H, T, D)
    const Tensor V = split_heads((*v_proj_)(x));   // (B, H, T, D)
    return (*o_proj_)(merge_heads(attend(Q, K, V, context)));   // (B, T, C)
}

namespace {

// Reads "heads" (required, dividing the model width) and "bias", the keys both layers share.
std::pair<int64_t, bool> read_heads_and_bias(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ConfigError(config.path() + ": attention layers need LayerBuildContext::init_rng");
    const int64_t heads = config.integer("heads", 1, std::max<int64_t>(build.width, 1));
    if (build.width % heads != 0)
        throw ConfigError(config.path_of("heads") + ": " + std::to_string(heads) + " does not divide the model width " +
                          std::to_string(build.width));
    return {heads, config.boolean("bias", true)};
}

}  // namespace

// ── tiled_attention ────────────────────────────────────────────────────
TiledMultiHeadAttention::TiledMultiHeadAttention(int64_t width, const TiledAttentionConfig& config,
                                                 const InitScheme& init, Rng& rng, DType dtype)
    : ProjectedSelfAttention(width, config.heads, config.bias, init, rng, dtype), config_(config) {}

// With rotary: scores ⟨R_i q_i, R_j k_j⟩ depend on positions only through i − j.
Tensor TiledMultiHeadAttention::attend(const Tensor& Q, const Tensor& K, const Tensor& V, const SequenceContext& context) {
    const TiledAttentionOptions options{.causal = context.causal, .key_padding_mask = context.padding_mask,
                                        .query_tile = config_.query_tile, .key_tile = config_.key_tile};
    if (!config_.rotary) return tiled_attention(Q, K, V, options);
    return tiled_attention(apply_rotary(Q, 0, config_.rotary_base), apply_rotary(K, 0, config_.rotary_base), V, options);
}

std::shared_ptr<SequenceLayer> TiledMultiHeadAttention::from_config(config::JsonReader& config,
                                                                    const LayerBuildContext& build) {
    TiledAttentionConfig tiled;
    std::tie(tiled.heads, tiled.bias) = read_heads_and_bias(config, build);
    tiled.query_tile = config.integer("query_tile", 128, 1, 4096);
    tiled.key_tile = config.integer("key_tile", 128, 1, 4096);
    tiled.rotary = config.boolean("rotary", false);
    tiled.rotary_base = config.number("rotary_base", 10000, 1, 1e12);
    return std::make_shared<TiledMultiHeadAttention>(build.width, tiled, build.init, *build.init_rng, build.dtype);
}

// ── linear_attention ───────────────────────────────────────────────────
Tensor LinearMultiHeadAttention::attend(const Tensor& Q, const Tensor& K, const Tensor& V, const SequenceContext& context) {
    return linear_attention(Q, K, V, {.causal = context.causal, .key_padding_mask = context.padding_mask});
}

std::shared_ptr<SequenceLayer> LinearMultiHeadAttention::from_config(config::JsonReader& config,
                                                                     const LayerBuildContext& build) {
    const auto [heads, bias] = read_heads_and_bias(config, build);
    return std::make_shared<LinearMultiHeadAttention>(build.width, heads, bias, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
