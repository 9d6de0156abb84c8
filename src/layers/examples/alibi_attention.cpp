// The ALiBi attention example: the scores, the distance penalty, the masks of masks.h, and the
// two lines that connect it to analysis and the temperature curriculum.
#include "layers/examples/alibi_attention.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "layers/attention/masks.h"

namespace tf {

namespace {

// m·|i − j| for T queries and keys: (T, T), a constant.
Tensor distance_penalty(int64_t T, double slope, DType dtype) {
    Tensor penalty({T, T}, DType::f64);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) penalty.data<double>()[i * T + j] = slope * static_cast<double>(std::abs(i - j));
    return penalty.to(dtype);
}

}  // namespace

AlibiAttention::AlibiAttention(const AlibiAttentionOptions& options, const InitScheme& init, Rng& rng, DType dtype)
    : options_(options) {
    if (options.width < 1 || !(options.slope >= 0))
        throw ValueError("alibi_attention: width must be ≥ 1 and slope ≥ 0, got " + std::to_string(options.width) + " and " +
                         std::to_string(options.slope));
    const int64_t C = options.width;
    q_proj_ = register_module("q_proj", std::make_shared<Linear>(C, C, Bias::learned, init, rng, dtype));
    k_proj_ = register_module("k_proj", std::make_shared<Linear>(C, C, Bias::learned, init, rng, dtype));
    v_proj_ = register_module("v_proj", std::make_shared<Linear>(C, C, Bias::learned, init, rng, dtype));
    o_proj_ = register_module("o_proj", std::make_shared<Linear>(C, C, Bias::learned, init, rng, dtype));
}

Tensor AlibiAttention::forward(const Tensor& x, const SequenceContext& context) {
    if (x.dim() != 3 || x.size(2) != options_.width)
        throw ShapeError("alibi_attention: x " + to_string(x.shape()) + ": expected (B, T, " + std::to_string(options_.width) + ")");
    if (context.memory.defined()) throw ValueError("alibi_attention: self-attention only, but the context holds a memory");
    const int64_t T = x.size(1);
    const Tensor q = (*q_proj_)(x), k = (*k_proj_)(x), v = (*v_proj_)(x);  // (B, T, C)
    // τ, times the curriculum's factor when the pass carries one
    const double tau = options_.temperature.value_or(std::sqrt(static_cast<double>(options_.width))) *
                       temperature_scale(context.observer);
    // s_ij = q_i·k_j / τ − m·|i − j|, hidden keys −∞                     (B, T, T)
    Tensor scores = matmul(q, k, {.transpose_b = true}) / tau - distance_penalty(T, options_.slope, x.dtype());
    const Tensor hidden = combined_mask({.causal = context.causal, .key_padding = context.padding_mask}, scores.shape());
    if (hidden.defined()) scores = masked_fill(scores, hidden, -std::numeric_limits<double>::infinity());
    const Tensor A = softmax(scores);  // (B, T, T)
    if (records_attention(context.observer))  // one head: (B, 1, T, T)
        context.observer->attention.push_back({.name = name(), .kind = "self", .queries_from = context.side,
                                               .keys_from = context.side, .weights = reshape(A.detach(), {x.size(0), 1, T, T})});
    return (*o_proj_)(matmul(A, v));  // (B, T, C)
}

std::shared_ptr<SequenceLayer> AlibiAttention::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    if (!build.init_rng) throw ValueError("alibi_attention: the build context has no init_rng");
    AlibiAttentionOptions options{.width = build.width, .slope = config.number("slope", 0.5, 0.0, 16.0)};
    if (config.has("temperature"))
        options.temperature = config.number("temperature", std::numeric_limits<double>::min(), std::numeric_limits<double>::infinity());
    return std::make_shared<AlibiAttention>(options, build.init, *build.init_rng, build.dtype);
}

}  // namespace tf
