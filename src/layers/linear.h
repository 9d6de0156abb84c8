// Linear: y = x·Wᵀ + b      x: (…, in)   W: (out, in)   b: (out)   y: (…, out)
// W is stored (out, in) as in PyTorch, so weights move between the two without transposing.
#pragma once
#include <vector>

#include "autograd/ops.h"
#include "layers/init.h"
#include "layers/module.h"

namespace tf {

// Whether y gets the learned b (zeros at first), named at each call: Linear(C, V, Bias::learned, …).
enum class Bias { none, learned };

class Linear : public Module {
public:
    Linear(int64_t in_features, int64_t out_features, Bias bias, const InitScheme& init, Rng& rng,
           DType dtype = DType::f32);
    // act(x·Wᵀ + b), the activation (none or ReLU) applied as the product is written.
    Tensor forward(const Tensor& x, LinearActivation activation = LinearActivation::none) const;
    Tensor operator()(const Tensor& x) const { return forward(x); }

    const Tensor& weight() const { return weight_; }
    const Tensor& bias() const { return bias_; }  // undefined without a bias

private:
    Tensor weight_, bias_;
};

// The outputs of several Linear layers on the same x, side by side, by one GEMM (PyTorch's in_proj):
//   y = x·[W_1; …; W_n]ᵀ + [b_1; …; b_n]      x: (…, in)   y: (…, out_1 + … + out_n)
// The weights are stacked on every call (a copy of the weights, not of the activations), so each
// layer keeps its own parameters and names. Every layer has a bias, or none does.
Tensor stacked_linear(const Tensor& x, const std::vector<const Linear*>& layers);

}  // namespace tf
