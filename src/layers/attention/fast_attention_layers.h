// Self-attention layers a config can name, built on the fused kernels of this folder:
//   "tiled_attention"   softmax attention, tiled (memory linear in T), optional rotary positions
//   "linear_attention"  elu+1 linear attention, O(T·D²)
// Both are X → o_proj(merge_heads(attend(split_heads(q_proj X), split_heads(k_proj X), …))).
#pragma once
#include <memory>

#include "config/json_reader.h"
#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

// The projections and head bookkeeping both layers share; `attend` is the per-head kernel.
class ProjectedSelfAttention : public SequenceLayer {
public:
    ProjectedSelfAttention(int64_t width, int64_t heads, bool bias, const InitScheme& init, Rng& rng, DType dtype);
    // x: (B, T, C) → (B, T, C); keys at context.padding_mask are never attended; context.causal.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;
    int64_t heads() const { return heads_; }

protected:
    // Q, K, V: (B, H, T, D) → (B, H, T, D)
    virtual Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, const SequenceContext& context) = 0;

private:
    Tensor split_heads(const Tensor& x) const;   // (B, T, C) → (B, H, T, D)
    Tensor merge_heads(const Tensor& x) const;   // (B, H, T, D) → (B, T, C)

    int64_t heads_;
    std::shared_ptr<Linear> q_proj_, k_proj_, v_proj_, o_proj_;
};

struct TiledAttentionConfig {
    int64_t heads = 1;
    bool bias = true;
    int64_t query_tile = 128, key_tile = 128;
    bool rotary = false;          // rotate Q and K by position (RoPE) before attending
    double rotary_base = 10000;
};

// {"type": "tiled_attention", "heads": 4, "bias": true, "query_tile": 128, "key_tile": 128,
//  "rotary": false, "rotary_base": 10000}
class TiledMultiHeadAttention : public ProjectedSelfAttention {
public:
    TiledMultiHeadAttention(int64_t width, const TiledAttentionConfig& config, const InitScheme& init, Rng& rng,
                            DType dtype = DType::f32);
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

protected:
    Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, const SequenceContext& context) override;

private:
    TiledAttentionConfig config_;
};

// {"type": "linear_attention", "heads": 4, "bias": true}
class LinearMultiHeadAttention : public ProjectedSelfAttention {
public:
    using ProjectedSelfAttention::ProjectedSelfAttention;
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

protected:
    Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, const SequenceContext& context) override;
};

}  // namespace tf
