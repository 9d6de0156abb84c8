// Adam and AdamW, PyTorch's update order and bias correction exactly: one fused loop per
// parameter, threaded over elements when the parameter is large.
#include <algorithm>
#include <cmath>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "train/optimizer.h"

namespace tf::train {

namespace {

// The per-step scalars, computed once in double as PyTorch does, then used in T.
struct AdamStep {
    double l2;           // λ added to the gradient (Adam), or 0 (AdamW)
    double decay;        // 1 − lr·λ multiplying p first (AdamW), or 1 (Adam)
    double beta1, beta2, eps;
    double step_size;    // lr / (1 − β1^t)
    double bias2_sqrt;   // √(1 − β2^t)
};

template <class T>
void adam_update(T* p, const T* grad, T* m, T* v, int64_t n, const AdamStep& s) {
    const T l2 = static_cast<T>(s.l2), decay = static_cast<T>(s.decay), one_minus_beta1 = static_cast<T>(1 - s.beta1);
    const T beta2 = static_cast<T>(s.beta2), one_minus_beta2 = static_cast<T>(1 - s.beta2);
    const T eps = static_cast<T>(s.eps), step_size = static_cast<T>(s.step_size), bias2_sqrt = static_cast<T>(s.bias2_sqrt);
    const bool coupled = s.l2 != 0, decoupled = s.decay != 1;
    // Blocks of elements over the threads, each block one simd loop (GCC 12 did not vectorise the
    // combined `parallel for simd`).
    constexpr int64_t kBlock = 4096;
    kernels::parallel_for((n + kBlock - 1) / kBlock, n >= kernels::kParallelGrain, [&](int64_t block) {
        const int64_t end = std::min(n, (block + 1) * kBlock);
#pragma omp simd
        for (int64_t i = block * kBlock; i < end; ++i) {
            T param = p[i], g = grad[i];                         // p is stored once, at the end
            if (coupled) g = g + l2 * param;                     // g ← g + λ·p                (Adam's L2)
            if (decoupled) param = param * decay;                // p ← p·(1 − lr·λ)           (AdamW's decay)
            m[i] = m[i] + one_minus_beta1 * (g - m[i]);          // m ← β1·m + (1−β1)·g        (PyTorch's lerp, β1 > ½)
            v[i] = v[i] * beta2 + one_minus_beta2 * g * g;       // v ← β2·v + (1−β2)·g²
            const T denom = std::sqrt(v[i]) / bias2_sqrt + eps;  // √v̂ + ε,  v̂ = v / (1 − β2^t)
            p[i] = param - step_size * m[i] / denom;             // p ← p − lr·m̂ / (√v̂ + ε),  m̂ = m / (1 − β1^t)
        }
    });
}

void check_options(const AdamOptions& options, const char* name) {
    const auto fail = [&](const std::string& what, double got) {
        throw ValueError(std::string(name) + ": " + what + ", got " + std::to_string(got));
    };
    if (!(options.beta1 >= 0 && options.beta1 < 1)) fail("beta1 must be in [0, 1)", options.beta1);
    if (!(options.beta2 >= 0 && options.beta2 < 1)) fail("beta2 must be in [0, 1)", options.beta2);
    if (!(options.eps > 0)) fail("eps must be > 0", options.eps);
    if (!(options.weight_decay >= 0)) fail("weight_decay must be ≥ 0", options.weight_decay);
}
}  // namespace

Adam::Adam(const NamedParameters& parameters, const AdamOptions& options) : Adam(parameters, options, false) {}

Adam::Adam(const NamedParameters& parameters, const AdamOptions& options, bool decoupled_weight_decay)
    : Optimizer(parameters), options_(options), decoupled_weight_decay_(decoupled_weight_decay) {
    check_options(options, decoupled_weight_decay ? "adamw" : "adam");
    add_buffer("exp_avg");
    add_buffer("exp_avg_sq");
    add_buffer("step", /*per_parameter_counter=*/true);
}

AdamW::AdamW(const NamedParameters& parameters, const AdamOptions& options) : Adam(parameters, options, true) {}

void Adam::update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) {
    Tensor& step_tensor = buffer(2, index);
    const double t = step_tensor.item() + 1;  // this parameter's step, 1 on its first update
    step_tensor.set({}, t);
    const double lambda = options_.weight_decay;
    const AdamStep s{decoupled_weight_decay_ ? 0 : lambda,
                     decoupled_weight_decay_ ? 1 - lr * lambda : 1,
                     options_.beta1, options_.beta2, options_.eps,
                     lr / (1 - std::pow(options_.beta1, t)),
                     std::sqrt(1 - std::pow(options_.beta2, t))};
    dispatch(parameter.dtype(), [&](auto zero) {
        using T = decltype(zero);
        adam_update(parameter.data<T>(), grad.data<T>(), buffer(0, index).data<T>(), buffer(1, index).data<T>(),
                    parameter.numel(), s);
    });
}

}  // namespace tf::train
