// The SwiGLU feed-forward: three projections and the swish gate, composed from ops.
#include "layers/swiglu_feed_forward.h"

#include <algorithm>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

SwiGluFeedForward::SwiGluFeedForward(int64_t width, int64_t hidden, const InitScheme& init, Rng& rng, DType dtype) {
    if (width < 1 || hidden < 1)
        throw ValueError("swiglu: width and hidden must be ≥ 1, got " + std::to_string(width) + " and " + std::to_string(hidden));
    gate_proj_ = register_module("gate_proj", std::make_shared<Linear>(width, hidden, Bias::none, init, rng, dtype));
    up_proj_ = register_module("up_proj", std::make_shared<Linear>(width, hidden, Bias::none, init, rng, dtype));
    down_proj_ = register_module("down_proj", std::make_shared<Linear>(hidden, width, Bias::none, init, rng, dtype));
}

Tensor SwiGluFeedForward::forward(const Tensor& x, const SequenceContext&) {
    const Tensor gate = (*gate_proj_)(x);                     // W_gate·x   (…, H)
    const Tensor swish = gate * sigmoid(gate);                // swish(a) = a·σ(a)
    return (*down_proj_)(swish * (*up_proj_)(x));             // W_down·(swish ⊙ W_up·x)   (…, C)
}

std::shared_ptr<SequenceLayer> SwiGluFeedForward::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("swiglu: the build context has no init_rng");
    const int64_t hidden = config.integer("hidden", std::max<int64_t>(8 * build.width / 3, 1), {.min = 1, .max = 1 << 20});
    return std::make_shared<SwiGluFeedForward>(build.width, hidden, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
