// Multi-head attention (Vaswani et al. 2017 §3.2.2; docs/math/attention.md), with grouped-query
// (GQA, Ainslie et al. 2023) and multi-query (MQA, Shazeer 2019) variants:
//   MultiHead(X) = Concat(head_1 … head_H)·W_oᵀ + b_o,   head_h = Attention(X·W_q,hᵀ, M·W_k,gᵀ, M·W_v,gᵀ)
// M = X for self-attention, M = context.memory (the encoder output) for cross-attention;
// query head h reads key/value head g = ⌊h·H_kv / H⌋. kv_heads = heads is plain MHA, 1 is MQA.
// The one attention layer of the framework: `kernel` picks how the heads are computed (the readable
// softmax composition, the tiled online softmax, or linear attention), with the same projections,
// parameter names and masks whichever it is.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "layers/attention/attention_choices.h"
#include "layers/attention/key_value_cache.h"
#include "layers/attention/masks.h"
#include "layers/dropout.h"
#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

// Rows of Q and of K/V per tile of the tiled kernel.
struct AttentionTiles {
    int64_t query_tile = 128;
    int64_t key_tile = 128;
};

struct MultiHeadAttentionOptions {
    int64_t d_model = 0;   // C
    int64_t heads = 1;     // H; d_k = C / H
    int64_t kv_heads = 0;  // H_kv, dividing H; 0 means H (plain multi-head attention)
    Bias bias = Bias::learned;  // biases of the four projections
    AttentionKernel kernel = AttentionKernel::softmax;
    // Which keys each query may see besides the causal/padding masks (masks.h); window, stride and
    // global_tokens are read by the patterns that use them.
    AttentionPattern pattern = AttentionPattern::full;
    int64_t window = 0;
    int64_t stride = 0;
    int64_t global_tokens = 0;
    std::optional<double> temperature{};  // τ; default √d_k (softmax and tiled kernels)
    double dropout = 0.0;                 // on the attention weights, while training (softmax kernel)
    // Rotary positions (RoPE, Su et al. 2021) on self-attention's Q and K with this base; none = off.
    std::optional<double> rotary_base{};
    AttentionTiles tiles{};               // tiled kernel only
};

// Why these options cannot be built, naming the keys involved ("kernel \"linear\" cannot apply
// pattern \"sliding_window\""), or empty when they can.
std::string attention_options_problem(const MultiHeadAttentionOptions& options);

class MultiHeadAttention : public SequenceLayer {
public:
    MultiHeadAttention(const MultiHeadAttentionOptions& options, std::shared_ptr<Rng> dropout_rng,
                       const InitScheme& init, Rng& rng, DType dtype = DType::f32);

    // x: (B, T, C) → (B, T, C). Self-attention unless context.memory (B, S, C) is defined; then
    // cross-attention over it, hiding context.memory_padding_mask, never causal. Self-attention
    // hides context.padding_mask's keys and, if context.causal, the future. With an observer that
    // asks, the weights (B, H, T, S) are recorded under this layer's name (not by the linear kernel,
    // which never forms them), and τ is multiplied by the observer's temperature scale.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;

    // Decoding: the new queries x_new (B, t, C) attend to the cached keys and values plus their own
    // (causal self-attention), or to the memory's (cross-attention). Equal to the last t rows of
    // forward over the whole sequence. A self-attention cache holds only H_kv heads, and a causal
    // sliding window's only its last window − 1 positions, so its memory stays O(window).
    StepMode step_mode() const override { return StepMode::cached; }
    std::unique_ptr<StepCache> make_step_cache() const override { return std::make_unique<KeyValueCache>(); }
    Tensor forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) override;

    // Keys: d_model (default: the model width; must equal it), heads, kv_heads, bias, kernel, pattern,
    // window, stride, global_tokens, temperature, dropout, rotary, rotary_base, query_tile, key_tile.
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);
    // Reads those keys into options (shared with the transformer blocks, whose attention dropout
    // sits under another key); errors name the JSON path.
    static MultiHeadAttentionOptions options_from_config(config::JsonReader& config, const LayerBuildContext& build,
                                                         const std::string& dropout_key, double dropout_default);

    const MultiHeadAttentionOptions& options() const { return options_; }

private:
    Tensor split_heads(const Tensor& x, int64_t heads) const;
    Tensor merge_heads(const Tensor& x) const;
    Tensor repeat_kv_heads(const Tensor& x) const;
    AttentionMask mask_for(const SequenceContext& context, bool cross, int64_t T, int64_t S) const;
    Tensor attend_heads(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask, double tau,
                        const SequenceContext& context);
    void check_shapes(const Tensor& x, const Tensor& source) const;
    double temperature(const SequenceContext& context) const;
    void cache_new_positions(KeyValueCache& cache, const Tensor& x_new, Tensor& Q) const;
    bool reads_cache_in_place(const SequenceContext& context, const KeyValueCache& cache, int64_t new_positions) const;
    bool reads_heads_in_place(const SequenceContext& context) const;
    Tensor attend_in_place(const Tensor& x, const Tensor& source, bool cross, const AttentionMask& mask, double tau) const;
    void record(const SequenceContext& context, const Tensor& weights, const Tensor& Q, const Tensor& K) const;

    MultiHeadAttentionOptions options_;
    int64_t head_width_;  // D = d_k = C / H
    std::shared_ptr<Linear> q_proj_, k_proj_, v_proj_, o_proj_;
    std::shared_ptr<Dropout> dropout_;
};

}  // namespace tf
