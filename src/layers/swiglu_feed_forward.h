// SwiGLU feed-forward (Shazeer 2020, "GLU Variants Improve Transformer"; the FFN of LLaMA): a gated
// linear unit with the swish gate, no biases:
//   FFN(x) = W_down · (swish(W_gate·x) ⊙ (W_up·x)),   swish(a) = a·σ(a)        x: (…, C) → (…, C)
// Three matrices instead of two, so the default hidden width ⌊8C/3⌋ keeps the parameter count of
// the 4C two-matrix feed-forward: 3·C·(8C/3) = 8C². A transformer block takes it by name:
// "ffn": {"type": "swiglu"}.
#pragma once
#include <memory>

#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

class SwiGluFeedForward : public SequenceLayer {
public:
    SwiGluFeedForward(int64_t width, int64_t hidden, const InitScheme& init, Rng& rng, DType dtype = DType::f32);

    // Position-wise: the context is not read.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;
    StepMode step_mode() const override { return StepMode::position_wise; }

    // {"type": "swiglu", "hidden": H}   (H ≥ 1, default ⌊8C/3⌋; C is the model width)
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

private:
    std::shared_ptr<Linear> gate_proj_, up_proj_, down_proj_;
};

}  // namespace tf
