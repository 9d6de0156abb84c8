// FeedForward block.
#include "layers/feed_forward.h"

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

FeedForward::FeedForward(int64_t width, int64_t hidden, Activation activation, double dropout_p,
                         std::shared_ptr<Rng> dropout_rng, const InitScheme& init, Rng& rng, DType dtype)
    : activation_(activation) {
    linear1_ = register_module("linear1", std::make_shared<Linear>(width, hidden, Bias::learned, init, rng, dtype));
    linear2_ = register_module("linear2", std::make_shared<Linear>(hidden, width, Bias::learned, init, rng, dtype));
    dropout_ = register_module("dropout", std::make_shared<Dropout>(dropout_p, std::move(dropout_rng)));
}

// FFN(x) = W_2·dropout(act(W_1·x + b_1)) + b_2; a ReLU is applied by linear1's GEMM as it writes.
Tensor FeedForward::forward(const Tensor& x) const {
    const Tensor hidden = activation_ == Activation::gelu ? gelu((*linear1_)(x))   // (…, hidden)
                                                          : linear1_->forward(x, LinearActivation::relu);
    return (*linear2_)((*dropout_)(hidden));
}

std::shared_ptr<SequenceLayer> FeedForward::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("feed_forward: the build context has no init_rng");
    const int64_t hidden = config.integer("hidden", 4 * build.width, {.min = 1, .max = 1 << 20});
    const Activation activation = config.choice("activation", Activation::relu);
    const double dropout = config.number("dropout", 0.0, 0.0, 0.999);
    return std::make_shared<FeedForward>(build.width, hidden, activation, dropout, build.dropout_rng, build.init,
                                         *build.init_rng, build.dtype);
}

}  // namespace tf
