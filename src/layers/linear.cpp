// Linear layer.
#include "layers/linear.h"

#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

Linear::Linear(int64_t in_features, int64_t out_features, Bias bias, const InitScheme& init, Rng& rng, DType dtype) {
    weight_ = register_parameter("weight", init_tensor({out_features, in_features}, in_features, out_features, init, rng, dtype));
    if (bias == Bias::learned) bias_ = register_parameter("bias", Tensor::zeros({out_features}, dtype));
}

// y = x·Wᵀ + b: one GEMM over all leading dimensions (matmul and linear fold them into rows).
Tensor Linear::forward(const Tensor& x, LinearActivation activation) const {
    // BEGIN FAST A1.3: if (bias_.defined()) return composed_linear(x, weight_, bias_, activation);
    if (bias_.defined()) return linear(x, weight_, bias_, activation);
    // END FAST
    const Tensor y = matmul(x, weight_, {.transpose_a = false, .transpose_b = true});
    return activation == LinearActivation::relu ? relu(y) : y;
}

Tensor stacked_linear(const Tensor& x, const std::vector<const Linear*>& layers) {
    std::vector<Tensor> weights, biases;
    for (const Linear* layer : layers) {
        weights.push_back(layer->weight());
        if (layer->bias().defined()) biases.push_back(layer->bias());
    }
    if (!biases.empty() && biases.size() != layers.size())
        throw ValueError("stacked_linear: " + std::to_string(biases.size()) + " of " + std::to_string(layers.size()) +
                         " layers have a bias; stacking needs all or none");
    const Tensor weight = weights.size() == 1 ? weights.front() : concat(weights, 0);   // (Σ out, in)
    if (biases.empty()) return matmul(x, weight, {.transpose_a = false, .transpose_b = true});
    // BEGIN FAST A1.3: return composed_linear(x, weight, biases.size() == 1 ? biases.front() : concat(biases, 0));
    return linear(x, weight, biases.size() == 1 ? biases.front() : concat(biases, 0));
    // END FAST
}

}  // namespace tf
