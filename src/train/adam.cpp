// Adam and AdamW, PyTorch's update order and bias correction exactly: one fused loop per block of
// elements; a step's blocks of every parameter form one list, threaded in one parallel region.
#include <algorithm>
#include <cmath>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "train/optimizer.h"

namespace tf::train {

// The per-step scalars, computed once in double as PyTorch does, then used in T.
struct AdamStep {
    double l2;           // λ added to the gradient (Adam), or 0 (AdamW)
    double decay;        // 1 − lr·λ multiplying p first (AdamW), or 1 (Adam)
    double beta1, beta2, eps;
    double step_size;    // lr / (1 − β1^t)
    double bias2_sqrt;   // √(1 − β2^t)
};

namespace {

// One parameter's elements [begin, end): p, its gradient and its moments m and v.
template <class T>
void adam_elements(T* p, const T* grad, T* m, T* v, int64_t begin, int64_t end, const AdamStep& s) {
    const T l2 = static_cast<T>(s.l2), decay = static_cast<T>(s.decay), one_minus_beta1 = static_cast<T>(1 - s.beta1);
    const T beta2 = static_cast<T>(s.beta2), one_minus_beta2 = static_cast<T>(1 - s.beta2);
    const T eps = static_cast<T>(s.eps), step_size = static_cast<T>(s.step_size), bias2_sqrt = static_cast<T>(s.bias2_sqrt);
    const bool coupled = s.l2 != 0, decoupled = s.decay != 1;
#pragma omp simd   // one simd loop per block (GCC 12 did not vectorise a combined `parallel for simd`)
    for (int64_t i = begin; i < end; ++i) {
        T param = p[i], g = grad[i];                         // p is stored once, at the end
        if (coupled) g = g + l2 * param;                     // g ← g + λ·p                (Adam's L2)
        if (decoupled) param = param * decay;                // p ← p·(1 − lr·λ)           (AdamW's decay)
        m[i] = m[i] + one_minus_beta1 * (g - m[i]);          // m ← β1·m + (1−β1)·g        (PyTorch's lerp, β1 > ½)
        v[i] = v[i] * beta2 + one_minus_beta2 * g * g;       // v ← β2·v + (1−β2)·g²
        const T denom = std::sqrt(v[i]) / bias2_sqrt + eps;  // √v̂ + ε,  v̂ = v / (1 − β2^t)
        p[i] = param - step_size * m[i] / denom;             // p ← p − lr·m̂ / (√v̂ + ε),  m̂ = m / (1 − β1^t)
    }
}

// Elements per block: the unit of work the threads share.
constexpr int64_t kBlock = 4096;

// One parameter's update, its blocks over the threads when it is large.
template <class T>
void adam_update(T* p, const T* grad, T* m, T* v, int64_t n, const AdamStep& s) {
    kernels::parallel_for((n + kBlock - 1) / kBlock, n >= kernels::kParallelGrain, [&](int64_t block) {
        adam_elements(p, grad, m, v, block * kBlock, std::min(n, (block + 1) * kBlock), s);
    });
}

// A block of one parameter's elements, in the list that spans every parameter of a step.
struct AdamBlock {
    void *p, *m, *v;
    const void* grad;
    int64_t begin, end;
    DType dtype;
    std::size_t step;   // which AdamStep (each parameter has its own t)
};

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

Adam::Adam(const NamedParameters& parameters, const AdamOptions& options)
    : Adam(parameters, options, WeightDecay::in_gradient) {}

Adam::Adam(const NamedParameters& parameters, const AdamOptions& options, WeightDecay weight_decay)
    : Optimizer(parameters), options_(options), decoupled_weight_decay_(weight_decay == WeightDecay::decoupled) {
    check_options(options, decoupled_weight_decay_ ? "adamw" : "adam");
    add_buffer("exp_avg");
    add_buffer("exp_avg_sq");
    add_buffer("step", /*per_parameter_counter=*/true);
}

AdamW::AdamW(const NamedParameters& parameters, const AdamOptions& options)
    : Adam(parameters, options, WeightDecay::decoupled) {}

AdamStep Adam::next_step(std::size_t index, double lr) {
    Tensor& step_tensor = buffer(2, index);
    const double t = step_tensor.item() + 1;  // this parameter's step, 1 on its first update
    step_tensor.set({}, t);
    const double lambda = options_.weight_decay;
    return AdamStep{decoupled_weight_decay_ ? 0 : lambda,
                    decoupled_weight_decay_ ? 1 - lr * lambda : 1,
                    options_.beta1, options_.beta2, options_.eps,
                    lr / (1 - std::pow(options_.beta1, t)),
                    std::sqrt(1 - std::pow(options_.beta2, t))};
}

void Adam::update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) {
    const AdamStep s = next_step(index, lr);
    dispatch(parameter.dtype(), [&](auto zero) {
        using T = decltype(zero);
        adam_update(parameter.data<T>(), grad.data<T>(), buffer(0, index).data<T>(), buffer(1, index).data<T>(),
                    parameter.numel(), s);
    });
}

// The same arithmetic element by element as update(), so the same bits; the blocks of all the
// parameters form one list, shared by the threads in one parallel region. Under ReferenceKernels,
// one update() per parameter, the readable path.
void Adam::update_all(const std::vector<Update>& updates, double lr) {
    if (kernels::use_reference()) {
        Optimizer::update_all(updates, lr);
        return;
    }
    std::vector<AdamStep> steps;
    std::vector<AdamBlock> blocks;
    int64_t elements = 0;
    for (const Update& u : updates) {
        steps.push_back(next_step(u.index, lr));
        Tensor parameter = u.parameter;   // a handle to the parameter's data, to write through
        const int64_t n = parameter.numel();
        for (int64_t begin = 0; begin < n; begin += kBlock)
            blocks.push_back({parameter.raw_data(), buffer(0, u.index).raw_data(), buffer(1, u.index).raw_data(),
                              u.grad.raw_data(), begin, std::min(n, begin + kBlock), parameter.dtype(), steps.size() - 1});
        elements += n;
    }
    const int64_t count = static_cast<int64_t>(blocks.size());
    kernels::parallel_for(count, elements >= kernels::kParallelGrain, [&](int64_t i) {
        const AdamBlock& b = blocks[i];
        dispatch(b.dtype, [&](auto zero) {
            using T = decltype(zero);
            adam_elements(static_cast<T*>(b.p), static_cast<const T*>(b.grad), static_cast<T*>(b.m), static_cast<T*>(b.v),
                          b.begin, b.end, steps[b.step]);
        });
    });
}

}  // namespace tf::train
