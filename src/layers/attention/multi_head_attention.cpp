// Multi-head attention: four projections around the chosen kernel. The fast path reads the heads in
// place from the projections' rows, grouped K/V heads included; the readable path splits them by
// one reshape and one permute copy each. There, the softmax kernel needs no K/V repetition for
// grouped queries; the tiled and linear kernels read one K/V head per query head, so theirs are
// repeated (index_select, summed back in the backward).
#include "layers/attention/multi_head_attention.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/grouped_heads.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/attention/tiled_attention.h"
#include "layers/rotary.h"

namespace tf {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// The shape rules: C = H·D and H = G·H_kv.
std::string shape_problem(const MultiHeadAttentionOptions& o) {
    if (o.d_model < 1 || o.heads < 1 || o.kv_heads < 0)
        return "d_model " + std::to_string(o.d_model) + " and heads " + std::to_string(o.heads) + " must be ≥ 1, kv_heads " +
               std::to_string(o.kv_heads) + " ≥ 0";
    if (o.d_model % o.heads != 0)
        return "d_model " + std::to_string(o.d_model) + " is not divisible by heads " + std::to_string(o.heads);
    if (o.kv_heads != 0 && o.heads % o.kv_heads != 0)
        return "heads " + std::to_string(o.heads) + " is not divisible by kv_heads " + std::to_string(o.kv_heads);
    return "";
}

std::string pattern_problem(const MultiHeadAttentionOptions& o) {
    const std::string pattern = quoted(name_of(o.pattern));
    if (o.pattern != AttentionPattern::full && o.window < 1)
        return "pattern " + pattern + " needs window ≥ 1, got " + std::to_string(o.window);
    if (o.pattern == AttentionPattern::strided && (o.stride < 1 || o.global_tokens < 0))
        return "pattern " + pattern + " needs stride ≥ 1 and global_tokens ≥ 0, got " + std::to_string(o.stride) + " and " +
               std::to_string(o.global_tokens);
    return "";
}

// What each kernel can compute: the fused kernels never form the weights (so no dropout on them),
// and linear attention has no softmax (so no τ), no arbitrary pattern and no rotary scores.
std::string kernel_problem(const MultiHeadAttentionOptions& o) {
    const std::string kernel = "kernel " + quoted(name_of(o.kernel));
    if (o.kernel != AttentionKernel::softmax && o.dropout > 0)
        return kernel + " cannot apply dropout " + std::to_string(o.dropout) + " to weights it never forms (use kernel \"softmax\")";
    if (o.kernel != AttentionKernel::linear) return "";
    if (o.pattern != AttentionPattern::full) return kernel + " cannot apply pattern " + quoted(name_of(o.pattern));
    if (o.temperature) return kernel + " has no softmax, so no temperature";
    if (o.rotary_base) return kernel + " cannot apply rotary positions";
    return "";
}

MultiHeadAttentionOptions checked(MultiHeadAttentionOptions options) {
    if (const std::string problem = attention_options_problem(options); !problem.empty())
        throw ValueError("MultiHeadAttention: " + problem);
    if (options.kv_heads == 0) options.kv_heads = options.heads;
    return options;
}

}  // namespace

std::string attention_options_problem(const MultiHeadAttentionOptions& options) {
    for (auto rule : {shape_problem, pattern_problem, kernel_problem})
        if (std::string problem = rule(options); !problem.empty()) return problem;
    return "";
}

MultiHeadAttention::MultiHeadAttention(const MultiHeadAttentionOptions& options, std::shared_ptr<Rng> dropout_rng,
                                       const InitScheme& init, Rng& rng, DType dtype)
    : options_(checked(options)), head_width_(options.d_model / options.heads) {
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

// (B, H_kv, S, D) → (B, H, S, D): query head h gets its key/value head (grouped_heads.h); no copy when H_kv = H.
Tensor MultiHeadAttention::repeat_kv_heads(const Tensor& x) const {
    if (options_.kv_heads == options_.heads) return x;
    std::vector<int64_t> kv_head_per_query_head;
    for (int64_t h = 0; h < options_.heads; ++h) kv_head_per_query_head.push_back(kv_head_of(h, options_.heads, options_.kv_heads));
    return index_select(x, 1, IndexTensor(kv_head_per_query_head));
}

// Self-attention: causal if asked, padded keys hidden. Cross-attention: the memory's padding only.
// The pattern (sliding window is causal when the attention is) joins either.
AttentionMask MultiHeadAttention::mask_for(const SequenceContext& context, bool cross, int64_t T, int64_t S) const {
    AttentionMask mask;
    mask.causal = !cross && context.causal;
    mask.key_padding = cross ? context.memory_padding_mask : context.padding_mask;
    if (options_.pattern == AttentionPattern::sliding_window)
        mask.pattern = sliding_window_mask(T, S, options_.window, mask.causal);
    if (options_.pattern == AttentionPattern::strided)
        mask.pattern = strided_sparse_mask(T, S, options_.window, options_.stride, options_.global_tokens);
    return mask;
}

// Hands the weights (and the heads' queries and keys, for the √d_k check of analysis) to the observer.
void MultiHeadAttention::record(const SequenceContext& context, const Tensor& weights, const Tensor& Q,
                                const Tensor& K) const {
    const bool cross = context.memory.defined();
    context.observer->attention.push_back({.name = name(), .kind = cross ? "cross" : "self", .queries_from = context.side,
                                           .keys_from = cross ? SequenceSide::source : context.side,
                                           .weights = weights.detach(), .queries = Q.detach(), .keys = K.detach()});
}

// The heads' outputs (B, H, T, D) by the configured kernel.
Tensor MultiHeadAttention::attend_heads(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask,
                                        double tau, const SequenceContext& context) {
    const bool recording = records_attention(context.observer);
    switch (options_.kernel) {
        case AttentionKernel::softmax: {
            const Tensor A = attention_weights(Q, K, mask, tau);  // (B, H, T, S)
            if (recording) record(context, A, Q, K);
            return attend((*dropout_)(A), V);
        }
        case AttentionKernel::tiled:
            if (recording) record(context, attention_weights(Q.detach(), K.detach(), mask, tau), Q, K);
            return tiled_attention(Q, repeat_kv_heads(K), repeat_kv_heads(V),
                                   {.causal = mask.causal, .key_padding_mask = mask.key_padding, .pattern_mask = mask.pattern,
                                    .temperature = tau, .query_tile = options_.tiles.query_tile,
                                    .key_tile = options_.tiles.key_tile});
        case AttentionKernel::linear:
            return linear_attention(Q, repeat_kv_heads(K), repeat_kv_heads(V),
                                    {.causal = mask.causal, .key_padding_mask = mask.key_padding});
    }
    throw ValueError("MultiHeadAttention: unknown kernel");
}

void MultiHeadAttention::check_shapes(const Tensor& x, const Tensor& source) const {
    if (x.dim() != 3 || x.size(2) != options_.d_model || source.dim() != 3 || source.size(0) != x.size(0) ||
        source.size(2) != options_.d_model)
        throw ShapeError("MultiHeadAttention: expected x (B, T, " + std::to_string(options_.d_model) +
                         ") and memory (B, S, " + std::to_string(options_.d_model) + "), got " + to_string(x.shape()) +
                         (&source != &x ? " and " + to_string(source.shape()) : std::string()));
}

// τ = √d_k unless configured, times the observer's curriculum factor.
double MultiHeadAttention::temperature(const SequenceContext& context) const {
    return options_.temperature.value_or(std::sqrt(static_cast<double>(head_width_))) * temperature_scale(context.observer);
}

// The fast path, for training and evaluation: Q, K and V projected by one GEMM (K and V by one for
// cross-attention) and the tiled kernel reading every head in place from those rows, writing the
// heads merged. It computes the softmax attention of the composed path, so it is taken whenever
// nothing needs the weights themselves: no observer records them and no dropout acts on them.
// Rotary positions (which turn Q and K after the split) and the linear kernel (another formula)
// keep their paths, and ReferenceKernels keeps the readable composition.
bool MultiHeadAttention::reads_heads_in_place(const SequenceContext& context) const {
    // BEGIN FAST A2.1: return false;
    return !kernels::use_reference() && options_.kernel != AttentionKernel::linear && !options_.rotary_base &&
           !records_attention(context.observer) && !(dropout_->training() && options_.dropout > 0);
    // END FAST
}

// The heads' outputs merged, (B, T, C), by the fast path above.
Tensor MultiHeadAttention::attend_in_place(const Tensor& x, const Tensor& source, bool cross, const AttentionMask& mask,
                                           double tau) const {
    const AttentionHeads heads{options_.heads, options_.kv_heads};
    const TiledAttentionOptions tiled{.causal = mask.causal, .key_padding_mask = mask.key_padding, .pattern_mask = mask.pattern,
                                      .temperature = tau, .query_tile = options_.tiles.query_tile,
                                      .key_tile = options_.tiles.key_tile};
    if (cross) return tiled_cross_attention((*q_proj_)(x), stacked_linear(source, {k_proj_.get(), v_proj_.get()}), heads, tiled);
    return tiled_self_attention(stacked_linear(x, {q_proj_.get(), k_proj_.get(), v_proj_.get()}), heads, tiled);
}

Tensor MultiHeadAttention::forward(const Tensor& x, const SequenceContext& context) {
    const bool cross = context.memory.defined();
    const Tensor& source = cross ? context.memory : x;  // (B, S, C)
    check_shapes(x, source);
    if (reads_heads_in_place(context))
        return (*o_proj_)(attend_in_place(x, source, cross, mask_for(context, cross, x.size(1), source.size(1)), temperature(context)));
    Tensor Q = split_heads((*q_proj_)(x), options_.heads);          // (B, H, T, D)
    Tensor K = split_heads((*k_proj_)(source), options_.kv_heads);  // (B, H_kv, S, D)
    const Tensor V = split_heads((*v_proj_)(source), options_.kv_heads);  // (B, H_kv, S, D)
    // RoPE: scores ⟨R_i q_i, R_j k_j⟩ depend on positions only through i − j (self-attention only:
    // a query and a memory position are not on one axis).
    if (options_.rotary_base && !cross) Q = apply_rotary(Q, 0, *options_.rotary_base), K = apply_rotary(K, 0, *options_.rotary_base);
    const AttentionMask mask = mask_for(context, cross, x.size(1), source.size(1));
    return (*o_proj_)(merge_heads(attend_heads(Q, K, V, mask, temperature(context), context)));  // (B, T, C)
}

// Self-attention's step: the new positions' keys and values join the cache, at their absolute
// positions (rotary), and Q gets the same positions.
void MultiHeadAttention::cache_new_positions(KeyValueCache& cache, const Tensor& x_new, Tensor& Q) const {
    Tensor K = split_heads((*k_proj_)(x_new), options_.kv_heads);  // (B, H_kv, t, D)
    const Tensor V = split_heads((*v_proj_)(x_new), options_.kv_heads);
    if (options_.rotary_base) {
        Q = apply_rotary(Q, cache.positions_seen, *options_.rotary_base);
        K = apply_rotary(K, cache.positions_seen, *options_.rotary_base);
    }
    append_to_cache(cache, K, V);
    cache.positions_seen += x_new.size(1);
}

// The fast path (attend_to_cache) computes plain causal softmax attention over every held key:
// decoding (nothing recorded, no dropout, no observer), self-attention with no padding, and a
// pattern that hides nothing the cache still holds.
bool MultiHeadAttention::reads_cache_in_place(const SequenceContext& context, const KeyValueCache& cache,
                                              int64_t new_positions) const {
    // BEGIN FAST A2.1: return false;
    const bool pattern_hides_nothing =
        options_.pattern == AttentionPattern::full ||
        (options_.pattern == AttentionPattern::sliding_window && new_positions == 1 && cache.length <= options_.window);
    return !kernels::use_reference() && !grad_enabled() && options_.kernel != AttentionKernel::linear && pattern_hides_nothing &&
           !context.memory.defined() && !context.padding_mask.defined() && !records_attention(context.observer) &&
           !(dropout_->training() && options_.dropout > 0);
    // END FAST
}

// The masks are aligned bottom-right (query i sits at key position i + S − T), so the new queries
// are the last rows of the full sequence's mask — also when a sliding window dropped the oldest keys.
Tensor MultiHeadAttention::forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* step_cache) {
    KeyValueCache& cache = step_cache_of<KeyValueCache>(step_cache, name());
    const bool cross = context.memory.defined();
    check_shapes(x_new, cross ? context.memory : x_new);
    if (!cross && !context.causal)
        throw ValueError(name() + ": self-attention decodes step by step only when causal (a later position would change earlier outputs)");
    const int64_t t = x_new.size(1);
    Tensor Q = split_heads((*q_proj_)(x_new), options_.heads);  // (B, H, t, D)
    if (!cross)
        cache_new_positions(cache, x_new, Q);
    else if (cache.length == 0)  // the memory's keys and values, once
        append_to_cache(cache, split_heads((*k_proj_)(context.memory), options_.kv_heads),
                        split_heads((*v_proj_)(context.memory), options_.kv_heads));
    const double tau = temperature(context);
    const Tensor heads = reads_cache_in_place(context, cache, t)
                             ? attend_to_cache(Q, cache, tau)
                             : attend_heads(Q, filled_keys(cache), filled_values(cache),
                                            mask_for(context, cross, t, cache.length), tau, context);  // (B, H, t, D)
    // A causal window of w: the next query sees itself and the w − 1 keys before it.
    if (!cross && options_.pattern == AttentionPattern::sliding_window) keep_last_positions(cache, options_.window - 1);
    return (*o_proj_)(merge_heads(heads));  // (B, t, C)
}

MultiHeadAttentionOptions MultiHeadAttention::options_from_config(config::JsonReader& config,
                                                                   const LayerBuildContext& build,
                                                                   const std::string& dropout_key,
                                                                   double dropout_default) {
    MultiHeadAttentionOptions o;
    o.d_model = build.width > 0 ? config.integer("d_model", build.width, {.min = 1}) : config.integer("d_model", {.min = 1});
    if (build.width > 0 && o.d_model != build.width)
        throw ConfigError(config.path_of("d_model") + ": must equal the model width " + std::to_string(build.width));
    o.heads = config.integer("heads", {.min = 1});
    o.kv_heads = config.integer("kv_heads", o.heads, {.min = 1, .max = o.heads});
    o.bias = config.boolean("bias", true) ? Bias::learned : Bias::none;
    o.kernel = config.choice("kernel", o.kernel);
    o.pattern = config.choice("pattern", o.pattern);
    if (o.pattern != AttentionPattern::full) o.window = config.integer("window", {.min = 1});
    if (o.pattern == AttentionPattern::strided) o.stride = config.integer("stride", {.min = 1});
    if (o.pattern == AttentionPattern::strided) o.global_tokens = config.integer("global_tokens", 0, {.min = 0});
    if (config.has("temperature")) o.temperature = config.number("temperature", std::numeric_limits<double>::min(), kInfinity);
    o.dropout = config.number(dropout_key, dropout_default, 0.0, 0.999);
    if (config.boolean("rotary", false)) o.rotary_base = config.number("rotary_base", 10000, 1, 1e12);
    if (o.kernel == AttentionKernel::tiled)
        o.tiles = {config.integer("query_tile", 128, {.min = 1, .max = 4096}), config.integer("key_tile", 128, {.min = 1, .max = 4096})};
    if (const std::string problem = attention_options_problem(o); !problem.empty())
        throw ConfigError(config.path() + ": MultiHeadAttention: " + problem);
    return o;
}

std::shared_ptr<SequenceLayer> MultiHeadAttention::from_config(config::JsonReader& config,
                                                                const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("MultiHeadAttention::from_config: the build context has no init_rng");
    const MultiHeadAttentionOptions options = options_from_config(config, build, "dropout", 0.0);
    return std::make_shared<MultiHeadAttention>(options, build.dropout_rng, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
