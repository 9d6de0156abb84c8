// Multi-head attention: four projections around scaled dot-product attention, heads split by one
// reshape and one permute copy each, and no K/V repetition for grouped queries.
#include "layers/attention/multi_head_attention.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "layers/attention/scaled_dot_product.h"

namespace tf {

namespace {

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

void check_options(const MultiHeadAttentionOptions& o) {
    const std::string op = "MultiHeadAttention: ";
    if (o.d_model < 1 || o.heads < 1 || o.kv_heads < 0)
        throw ValueError(op + "d_model " + std::to_string(o.d_model) + " and heads " + std::to_string(o.heads) +
                         " must be ≥ 1, kv_heads " + std::to_string(o.kv_heads) + " ≥ 0");
    if (o.d_model % o.heads != 0)
        throw ValueError(op + "d_model " + std::to_string(o.d_model) + " is not divisible by heads " +
                         std::to_string(o.heads));
    if (o.kv_heads != 0 && o.heads % o.kv_heads != 0)
        throw ValueError(op + "heads " + std::to_string(o.heads) + " is not divisible by kv_heads " +
                         std::to_string(o.kv_heads));
    if (o.pattern != "full" && o.pattern != "sliding_window" && o.pattern != "strided")
        throw ValueError(op + "pattern must be \"full\", \"sliding_window\" or \"strided\", got \"" + o.pattern + "\"");
    if (o.pattern != "full" && o.window < 1)
        throw ValueError(op + "pattern \"" + o.pattern + "\" needs window ≥ 1, got " + std::to_string(o.window));
    if (o.pattern == "strided" && (o.stride < 1 || o.global_tokens < 0))
        throw ValueError(op + "pattern \"strided\" needs stride ≥ 1 and global_tokens ≥ 0, got " +
                         std::to_string(o.stride) + " and " + std::to_string(o.global_tokens));
}

MultiHeadAttentionOptions with_kv_heads(MultiHeadAttentionOptions options) {
    check_options(options);
    if (options.kv_heads == 0) options.kv_heads = options.heads;
    return options;
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(const MultiHeadAttentionOptions& options, std::shared_ptr<Rng> dropout_rng,
                                       const InitScheme& init, Rng& rng, DType dtype)
    : options_(with_kv_heads(options)), head_width_(options.d_model / options.heads) {
    const int64_t C = options_.d_model, kv_width = options_.kv_heads * head_width_;
    q_proj_ = register_module("q_proj", std::make_shared<Linear>(C, C, options_.bias, init, rng, dtype));
    k_proj_ = register_module("k_proj", std::make_shared<Linear>(C, kv_width, options_.bias, init, rng, dtype));
    v_proj_ = register_module("v_proj", std::make_shared<Linear>(C, kv_width, options_.bias, init, rng, dtype));
    o_proj_ = register_module("o_proj", std::make_shared<Linear>(C, C, options_.bias, init, rng, dtype));
    dropout_ = register_module("dropout", std::make_shared<Dropout>(options_.dropout, std::move(dropout_rng)));
}

// (B, T, heads·D) → (B, heads, T, D): a free reshape, then one permute copy.
Tensor MultiHeadAttention::split_heads(const Tensor& x, int64_t heads) const {
    return permute(reshape(x, {x.size(0), x.size(1), heads, head_width_}), {0, 2, 1, 3});
}

// (B, H, T, D) → (B, T, H·D): one permute copy, then a free reshape.
Tensor MultiHeadAttention::merge_heads(const Tensor& x) const {
    return reshape(permute(x, {0, 2, 1, 3}), {x.size(0), x.size(2), options_.d_model});
}

// Self-attention: causal if asked, padded keys hidden. Cross-attention: the memory's padding only.
// The pattern (sliding window is causal when the attention is) joins either.
AttentionMask MultiHeadAttention::mask_for(const SequenceContext& context, bool cross, int64_t T, int64_t S) const {
    AttentionMask mask;
    mask.causal = !cross && context.causal;
    mask.key_padding = cross ? context.memory_padding_mask : context.padding_mask;
    if (options_.pattern == "sliding_window") mask.pattern = sliding_window_mask(T, S, options_.window, mask.causal);
    if (options_.pattern == "strided")
        mask.pattern = strided_sparse_mask(T, S, options_.window, options_.stride, options_.global_tokens);
    return mask;
}

Tensor MultiHeadAttention::forward(const Tensor& x, const SequenceContext& context) {
    const bool cross = context.memory.defined();
    const Tensor& source = cross ? context.memory : x;  // (B, S, C)
    if (x.dim() != 3 || x.size(2) != options_.d_model || source.dim() != 3 || source.size(0) != x.size(0) ||
        source.size(2) != options_.d_model)
        throw ShapeError("MultiHeadAttention: expected x (B, T, " + std::to_string(options_.d_model) +
                         ") and memory (B, S, " + std::to_string(options_.d_model) + "), got " +
                         to_string(x.shape()) + (cross ? " and " + to_string(source.shape()) : std::string()));
    const Tensor Q = split_heads((*q_proj_)(x), options_.heads);          // (B, H, T, D)
    const Tensor K = split_heads((*k_proj_)(source), options_.kv_heads);  // (B, H_kv, S, D)
    const Tensor V = split_heads((*v_proj_)(source), options_.kv_heads);  // (B, H_kv, S, D)
    const AttentionMask mask = mask_for(context, cross, x.size(1), source.size(1));
    const double tau = options_.temperature.value_or(std::sqrt(static_cast<double>(head_width_))) * temperature_scale_;
    const Tensor A = attention_weights(Q, K, mask, tau);  // (B, H, T, S)
    if (keep_weights_) last_weights_ = A.detach(), last_queries_ = Q.detach(), last_keys_ = K.detach();
    const Tensor heads = attend((*dropout_)(A), V);                       // (B, H, T, D)
    return (*o_proj_)(merge_heads(heads));                                 // (B, T, C)
}

MultiHeadAttentionOptions MultiHeadAttention::options_from_config(config::JsonReader& config,
                                                                   const LayerBuildContext& build,
                                                                   const std::string& dropout_key,
                                                                   double dropout_default) {
    MultiHeadAttentionOptions o;
    o.d_model = build.width > 0 ? config.integer("d_model", build.width, 1, kUnbounded) : config.integer("d_model", 1, kUnbounded);
    if (build.width > 0 && o.d_model != build.width)
        throw ConfigError(config.path_of("d_model") + ": must equal the model width " + std::to_string(build.width));
    o.heads = config.integer("heads", 1, kUnbounded);
    o.kv_heads = config.integer("kv_heads", o.heads, 1, o.heads);
    o.bias = config.boolean("bias", true);
    o.pattern = config.choice("pattern", "full", {"full", "sliding_window", "strided"});
    if (o.pattern != "full") o.window = config.integer("window", 1, kUnbounded);
    if (o.pattern == "strided") o.stride = config.integer("stride", 1, kUnbounded);
    if (o.pattern == "strided") o.global_tokens = config.integer("global_tokens", 0, 0, kUnbounded);
    if (config.has("temperature")) o.temperature = config.number("temperature", std::numeric_limits<double>::min(), kInfinity);
    o.dropout = config.number(dropout_key, dropout_default, 0.0, 0.999);
    try {
        check_options(o);
    } catch (const ValueError& error) {
        throw ConfigError(config.path() + ": " + error.what());
    }
    return o;
}

std::shared_ptr<SequenceLayer> MultiHeadAttention::from_config(config::JsonReader& config,
                                                                const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("MultiHeadAttention::from_config: the build context has no init_rng");
    const MultiHeadAttentionOptions options = options_from_config(config, build, "dropout", 0.0);
    return std::make_shared<MultiHeadAttention>(options, build.dropout_rng, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
