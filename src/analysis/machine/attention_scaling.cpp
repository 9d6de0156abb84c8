// One timed forward + backward per (variant, T), with the tensor-memory high-water mark around it.
#include "analysis/machine/attention_scaling.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>

#include "autograd/error.h"
#include "autograd/storage.h"
#include "autograd/tape.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/tiled_attention.h"
#include "layers/recurrent/recurrent_layer.h"

namespace tf::analysis {

namespace {

// The forward + backward call of one variant, with its inputs already built.
std::function<void()> make_call(const std::string& variant, int64_t T, const ScalingOptions& options, Rng& rng) {
    if (variant == "rnn") {
        const int64_t width = options.heads * options.head_dim;
        RecurrentOptions rnn_options;
        rnn_options.input_size = width, rnn_options.hidden_size = width;
        auto rnn = std::make_shared<RNN>(rnn_options, rng);
        Tensor x = Tensor::uniform({1, T, width}, -1, 1, rng);  // (1, T, C)
        x.set_requires_grad();
        const Tensor dy = Tensor::uniform({1, T, width}, -1, 1, rng);
        return [rnn, x, dy]() mutable {
            Tape::current().backward(rnn->forward(x, SequenceContext{}), dy);
            x.zero_grad();
            for (Tensor& p : rnn->parameters()) p.zero_grad();
        };
    }
    if (variant != "plain" && variant != "tiled" && variant != "linear")
        throw ValueError("attention scaling: unknown variant \"" + variant + "\" (rnn, plain, tiled, linear)");
    const Shape shape{1, options.heads, T, options.head_dim};  // (B, H, T, D)
    Tensor Q = Tensor::uniform(shape, -1, 1, rng), K = Tensor::uniform(shape, -1, 1, rng),
           V = Tensor::uniform(shape, -1, 1, rng);
    for (Tensor* x : {&Q, &K, &V}) x->set_requires_grad();
    const Tensor dO = Tensor::uniform(shape, -1, 1, rng);
    return [variant, Q, K, V, dO]() mutable {
        const Tensor O = variant == "plain"   ? composed_attention(Q, K, V, {.causal = true})
                         : variant == "tiled" ? tiled_attention(Q, K, V, {.causal = true})
                                              : linear_attention(Q, K, V, {.causal = true});
        Tape::current().backward(O, dO);
        for (Tensor* x : {&Q, &K, &V}) x->zero_grad();
    };
}

}  // namespace

const std::vector<std::string>& scaling_variants() {
    static const std::vector<std::string> variants{"rnn", "plain", "tiled", "linear"};
    return variants;
}

ScalingMeasurement measure_scaling(const std::string& variant, int64_t T, const ScalingOptions& options) {
    Rng rng(1);
    std::function<void()> call = make_call(variant, T, options, rng);
    call();
    std::vector<double> times;
    ScalingMeasurement result{variant, T, 0, 0};
    for (int r = 0; r < std::max(1, options.reps); ++r) {
        const int64_t live_before = memory::live_bytes();
        memory::reset_peak();
        const auto start = std::chrono::steady_clock::now();
        call();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        result.peak_bytes = std::max(result.peak_bytes, memory::peak_bytes() - live_before);
    }
    std::sort(times.begin(), times.end());
    result.ms = times[times.size() / 2];
    return result;
}

}  // namespace tf::analysis
