// SGD with momentum and Nesterov momentum, PyTorch's update (dampening 0): one fused loop per
// parameter, threaded over elements when the parameter is large.
#include "train/optimizer.h"

#include "autograd/error.h"
#include "autograd/kernels/mode.h"

namespace tf::train {

namespace {

template <class T>
void sgd_update(T* p, const T* grad, T* buf, int64_t n, const SgdOptions& options, double lr) {
    const T lr_t = static_cast<T>(lr), mu = static_cast<T>(options.momentum);
    const T lambda = static_cast<T>(options.weight_decay);
    const bool decay = options.weight_decay != 0, momentum = buf != nullptr, nesterov = options.nesterov;
#pragma omp parallel for simd if (n >= kernels::kParallelGrain) schedule(static)
    for (int64_t i = 0; i < n; ++i) {
        T g = grad[i];
        if (decay) g = g + lambda * p[i];            // g ← g + λ·p          (coupled weight decay)
        if (momentum) {
            buf[i] = mu * buf[i] + g;                // b ← μ·b + g          (b starts at 0, so b₁ = g₁)
            g = nesterov ? g + mu * buf[i] : buf[i]; // g ← g + μ·b (Nesterov)  or  g ← b
        }
        p[i] = p[i] - lr_t * g;                      // p ← p − lr·g
    }
}
}  // namespace

Sgd::Sgd(const NamedParameters& parameters, const SgdOptions& options) : Optimizer(parameters), options_(options) {
    if (!(options.momentum >= 0 && options.momentum < 1))
        throw ValueError("sgd: momentum must be in [0, 1), got " + std::to_string(options.momentum));
    if (options.nesterov && options.momentum == 0) throw ValueError("sgd: nesterov needs momentum > 0");
    if (!(options.weight_decay >= 0))
        throw ValueError("sgd: weight_decay must be ≥ 0, got " + std::to_string(options.weight_decay));
    if (options.momentum > 0) add_buffer("momentum_buffer");
}

void Sgd::update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) {
    dispatch(parameter.dtype(), [&](auto zero) {
        using T = decltype(zero);
        T* momentum_buffer = options_.momentum > 0 ? buffer(0, index).data<T>() : nullptr;
        sgd_update(parameter.data<T>(), grad.data<T>(), momentum_buffer, parameter.numel(), options_, lr);
    });
}

}  // namespace tf::train
