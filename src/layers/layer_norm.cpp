// LayerNorm module.
#include "layers/layer_norm.h"

#include "autograd/ops.h"

namespace tf {

LayerNorm::LayerNorm(int64_t width, double eps, DType dtype) : eps_(eps) {
    gamma_ = register_parameter("weight", Tensor::ones({width}, dtype));
    beta_ = register_parameter("bias", Tensor::zeros({width}, dtype));
}

Tensor LayerNorm::forward(const Tensor& x) const { return layer_norm(x, gamma_, beta_, eps_); }

Tensor LayerNorm::of_sum(const Tensor& x, const Tensor& r) const { return add_layer_norm(x, r, gamma_, beta_, eps_); }

}  // namespace tf
