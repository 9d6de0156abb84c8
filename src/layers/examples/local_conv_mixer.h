// A worked example of adding your own layer (docs/extending.md walks through it): a residual block
// that mixes each position with the k − 1 before it by a depthwise causal convolution and a gated
// linear unit (Dauphin et al. 2017, "Language Modeling with Gated Convolutional Networks"):
//   u   = LN(x)                                                  (B, T, C)
//   c_t = b_c + Σ_{j=0}^{k−1} w_j ⊙ u_{t−j}        u_{t<0} = 0    (B, T, C)   depthwise, causal
//   [a; g] = c·W_inᵀ + b_in                                      (B, T, 2C)
//   y   = x + (a ⊙ σ(g))·W_outᵀ + b_out                          (B, T, C)
// y_t depends on x_{t−k+1} … x_t only: causal and local by construction, whatever the context says.
#pragma once
#include <memory>

#include "layers/layer_norm.h"
#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

class LocalConvMixer : public SequenceLayer {
public:
    LocalConvMixer(int64_t width, int64_t kernel_size, const InitScheme& init, Rng& rng, DType dtype = DType::f32);

    // x (B, T, C) → (B, T, C). Ignores the masks: it never reads a later position, so right padding
    // cannot reach a valid one, and it is causal whether or not context.causal asks for it.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;

    // {"type": "local_conv_mixer", "kernel_size": k}   (k in [1, 64], default 4; C is the model width)
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

    int64_t kernel_size() const { return kernel_size_; }

private:
    Tensor causal_depthwise_conv(const Tensor& u) const;  // (B, T, C) → (B, T, C)

    int64_t width_, kernel_size_;
    std::shared_ptr<LayerNorm> norm_;
    Tensor conv_weight_;  // (k, C): row j weighs u_{t−j}
    Tensor conv_bias_;    // (C)
    std::shared_ptr<Linear> in_proj_, out_proj_;
};

}  // namespace tf
