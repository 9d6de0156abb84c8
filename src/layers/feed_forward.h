// FeedForward: the position-wise MLP of a transformer block.
//   FFN(x) = W₂ · dropout(act(W₁x + b₁)) + b₂        act = ReLU or GELU;  x: (…, C) → (…, C)
// Parameters are named linear1/linear2 as in PyTorch's TransformerEncoderLayer. The transformer
// blocks' default feed-forward, and a registry layer ("feed_forward") like any other they can take.
#pragma once
#include <memory>
#include <span>

#include "config/enum_names.h"
#include "layers/dropout.h"
#include "layers/linear.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

// The FFN's act, named "relu" or "gelu" in configs.
enum class Activation { relu, gelu };
inline constexpr EnumName<Activation> kActivationNames[] = {{Activation::relu, "relu"}, {Activation::gelu, "gelu"}};
inline std::span<const EnumName<Activation>> enum_names(Activation) { return kActivationNames; }

class FeedForward : public SequenceLayer {
public:
    FeedForward(int64_t width, int64_t hidden, Activation activation, double dropout_p,
                std::shared_ptr<Rng> dropout_rng, const InitScheme& init, Rng& rng, DType dtype = DType::f32);
    Tensor forward(const Tensor& x) const;
    Tensor operator()(const Tensor& x) const { return forward(x); }
    // Position-wise: the context is not read.
    Tensor forward(const Tensor& x, const SequenceContext&) override { return forward(x); }
    StepMode step_mode() const override { return StepMode::position_wise; }
    using SequenceLayer::operator();

    // {"type": "feed_forward", "hidden": H, "activation": "relu", "dropout": 0}   (H default 4C)
    static std::shared_ptr<SequenceLayer> from_config(config::JsonReader& config, const LayerBuildContext& build);

private:
    std::shared_ptr<Linear> linear1_, linear2_;
    std::shared_ptr<Dropout> dropout_;
    Activation activation_;
};

}  // namespace tf
