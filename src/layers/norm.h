// The normalisation a transformer block wraps its sublayers with, chosen by name from the norm
// table (layers/norm_registry.h): N(x) over the last axis, and N(x + r) for the post-LN residual.
#pragma once
#include "layers/module.h"

namespace tf {

class Norm : public Module {
public:
    virtual Tensor forward(const Tensor& x) const = 0;
    Tensor operator()(const Tensor& x) const { return forward(x); }
    // N(x + r), the post-LN residual; a norm with a fused kernel for it (LayerNorm) overrides this.
    virtual Tensor of_sum(const Tensor& x, const Tensor& r) const;
};

}  // namespace tf
