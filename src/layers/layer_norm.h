// LayerNorm module: y = γ ⊙ (x − μ)/√(σ² + ε) + β over the last axis (the op is in autograd/ops/nn.cpp).
// γ starts at 1 and β at 0, stored as "weight" and "bias" as in PyTorch.
#pragma once
#include "layers/norm.h"

namespace tf {

class LayerNorm : public Norm {
public:
    explicit LayerNorm(int64_t width, double eps = 1e-5, DType dtype = DType::f32);
    Tensor forward(const Tensor& x) const override;
    // LN(x + r), the post-LN residual, in one pass (add_layer_norm).
    Tensor of_sum(const Tensor& x, const Tensor& r) const override;

private:
    Tensor gamma_, beta_;
    double eps_;
};

}  // namespace tf
