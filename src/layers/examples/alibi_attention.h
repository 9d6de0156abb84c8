// A worked example of adding an attention layer (docs/extending.md, "An attention layer"): one head
// of softmax attention that knows positions by a linear penalty on distance instead of position
// embeddings (ALiBi, Press et al. 2022, "Train Short, Test Long"):
//   q, k, v = x·W_qᵀ + b_q,  x·W_kᵀ + b_k,  x·W_vᵀ + b_v          (B, T, C) each
//   s_ij    = q_i·k_j / τ − m·|i − j|        τ = √C unless configured, m = slope ≥ 0
//   A       = softmax_j(s_ij), hidden keys −∞   causal and padding masks as multi_head_attention
//   y       = (A·v)·W_oᵀ + b_o
// Recording A in the context's observer is all it takes to appear in `analyze`; multiplying τ by
// the observer's temperature scale is all it takes to follow the temperature curriculum.
#pragma once
#include <memory>
#include <optional>

#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

struct AlibiAttentionOptions {
    int64_t width = 0;                    // C
    double slope = 0.5;                   // m, the score lost per position of distance
    std::optional<double> temperature{};  // τ; √C when unset
};

class AlibiAttention : public SequenceLayer {
public:
    AlibiAttention(const AlibiAttentionOptions& options, const InitScheme& init, Rng& rng, DType dtype = DType::f32);

    // x (B, T, C) → (B, T, C): self-attention only (a context.memory is refused).
    Tensor forward(const Tensor& x, const SequenceContext& context) override;

    // {"type": "alibi_attention", "slope": 0.5, "temperature": 4.0}   (slope in [0, 16]; C is the model width)
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

private:
    AlibiAttentionOptions options_;
    std::shared_ptr<Linear> q_proj_, k_proj_, v_proj_, o_proj_;
};

}  // namespace tf
