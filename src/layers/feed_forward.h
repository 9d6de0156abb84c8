// FeedForward: the position-wise MLP of a transformer block.
//   FFN(x) = W₂ · dropout(act(W₁x + b₁)) + b₂        act = ReLU or GELU;  x: (…, C) → (…, C)
// Parameters are named linear1/linear2 as in PyTorch's TransformerEncoderLayer.
#pragma once
#include <memory>
#include <span>

#include "config/enum_names.h"
#include "layers/dropout.h"
#include "layers/linear.h"

namespace tf {

// The FFN's act, named "relu" or "gelu" in configs.
enum class Activation { relu, gelu };
inline constexpr EnumName<Activation> kActivationNames[] = {{Activation::relu, "relu"}, {Activation::gelu, "gelu"}};
inline std::span<const EnumName<Activation>> enum_names(Activation) { return kActivationNames; }

class FeedForward : public Module {
public:
    FeedForward(int64_t width, int64_t hidden, Activation activation, double dropout_p,
                std::shared_ptr<Rng> dropout_rng, const InitScheme& init, Rng& rng, DType dtype = DType::f32);
    Tensor forward(const Tensor& x) const;
    Tensor operator()(const Tensor& x) const { return forward(x); }

private:
    std::shared_ptr<Linear> linear1_, linear2_;
    std::shared_ptr<Dropout> dropout_;
    Activation activation_;
};

}  // namespace tf
