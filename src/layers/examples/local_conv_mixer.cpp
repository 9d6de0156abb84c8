// The local convolution mixer: a layer composed from ops only — the tape differentiates it, so
// there is no backward code here (tests/test_example_layer.cpp holds it to central differences).
#include "layers/examples/local_conv_mixer.h"

#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

LocalConvMixer::LocalConvMixer(int64_t width, int64_t kernel_size, const InitScheme& init, Rng& rng, DType dtype)
    : width_(width), kernel_size_(kernel_size) {
    if (width < 1 || kernel_size < 1)
        throw ValueError("LocalConvMixer: width " + std::to_string(width) + " and kernel_size " +
                         std::to_string(kernel_size) + " must be ≥ 1");
    norm_ = register_module("norm", std::make_shared<LayerNorm>(width, 1e-5, dtype));
    // Each channel's k taps see fan_in = fan_out = k inputs: a depthwise filter.
    conv_weight_ = register_parameter("conv_weight", init_tensor({kernel_size, width}, kernel_size, kernel_size, init, rng, dtype));
    conv_bias_ = register_parameter("conv_bias", Tensor::zeros({width}, dtype));
    in_proj_ = register_module("in_proj", std::make_shared<Linear>(width, 2 * width, Bias::learned, init, rng, dtype));
    out_proj_ = register_module("out_proj", std::make_shared<Linear>(width, width, Bias::learned, init, rng, dtype));
}

// c_t = b_c + Σ_j w_j ⊙ u_{t−j}: tap j is u shifted j steps later in time, zeros in front.
Tensor LocalConvMixer::causal_depthwise_conv(const Tensor& u) const {
    const int64_t B = u.size(0), T = u.size(1), C = u.size(2);
    Tensor c = conv_bias_;  // (C), broadcast up to (B, T, C) by the first add
    for (int64_t j = 0; j < kernel_size_ && j < T; ++j) {
        const Tensor tap = reshape(slice(conv_weight_, 0, j, j + 1), {C});  // (C)
        const Tensor shifted = j == 0 ? u
                                      : concat({Tensor::zeros({B, j, C}, u.dtype()), slice(u, 1, 0, T - j)}, 1);  // (B, T, C)
        c = c + shifted * tap;
    }
    return c;  // (B, T, C)
}

Tensor LocalConvMixer::forward(const Tensor& x, const SequenceContext&) {
    if (x.dim() != 3 || x.size(2) != width_)
        throw ShapeError("LocalConvMixer: input " + to_string(x.shape()) + " must be (B, T, C=" + std::to_string(width_) + ")");
    const Tensor c = causal_depthwise_conv((*norm_)(x));                       // (B, T, C)
    const std::vector<Tensor> halves = split((*in_proj_)(c), {width_, width_}, 2);  // a, g: (B, T, C) each
    const Tensor gated = halves[0] * sigmoid(halves[1]);                       // GLU: a ⊙ σ(g)
    return x + (*out_proj_)(gated);                                            // (B, T, C)
}

std::shared_ptr<SequenceLayer> LocalConvMixer::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("LocalConvMixer::from_config: the build context has no init_rng");
    if (build.width < 1) throw ConfigError(config.path() + ": local_conv_mixer needs the model width (LayerBuildContext.width)");
    const int64_t kernel_size = config.integer("kernel_size", 4, {.min = 1, .max = 64});
    return std::make_shared<LocalConvMixer>(build.width, kernel_size, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
