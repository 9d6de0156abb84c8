// Linear layer.
#include "layers/linear.h"

#include "autograd/ops.h"

namespace tf {

Linear::Linear(int64_t in_features, int64_t out_features, Bias bias, const InitScheme& init, Rng& rng, DType dtype) {
    weight_ = register_parameter("weight", init_tensor({out_features, in_features}, in_features, out_features, init, rng, dtype));
    if (bias == Bias::learned) bias_ = register_parameter("bias", Tensor::zeros({out_features}, dtype));
}

// y = x·Wᵀ + b: one GEMM over all leading dimensions (matmul and linear fold them into rows).
Tensor Linear::forward(const Tensor& x) const {
    if (bias_.defined()) return linear(x, weight_, bias_);
    return matmul(x, weight_, {.transpose_a = false, .transpose_b = true});
}

}  // namespace tf
