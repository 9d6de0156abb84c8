// Learning-rate schedules and gradient clipping by global norm.
#include "train/schedule.h"

#include <cmath>
#include <numbers>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf::train {

namespace {
void check_step(int64_t step, const char* schedule) {
    if (step < 1) throw ValueError(std::string(schedule) + " schedule: steps count from 1, got " + std::to_string(step));
}

// The warmup ramp peak·s/W shared by linear and cosine (W = 0: no warmup).
bool in_warmup(int64_t step, int64_t warmup_steps) { return step <= warmup_steps; }
double warmup_lr(int64_t step, double peak_lr, int64_t warmup_steps) {
    return peak_lr * static_cast<double>(step) / static_cast<double>(warmup_steps);
}

template <class T>
double sum_of_squares(const T* g, int64_t n) {
    double sum = 0;
#pragma omp parallel for simd reduction(+ : sum) if (n >= kernels::kParallelGrain) schedule(static)
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(g[i]) * static_cast<double>(g[i]);
    return sum;
}
}  // namespace

double linear_lr(int64_t step, double peak_lr, int64_t warmup_steps, int64_t total_steps, double min_lr) {
    check_step(step, "linear");
    if (in_warmup(step, warmup_steps)) return warmup_lr(step, peak_lr, warmup_steps);
    if (step >= total_steps) return min_lr;
    // min + (peak − min)·(N − s)/(N − W)
    const double remaining = static_cast<double>(total_steps - step) / static_cast<double>(total_steps - warmup_steps);
    return min_lr + (peak_lr - min_lr) * remaining;
}

double cosine_lr(int64_t step, double peak_lr, int64_t warmup_steps, int64_t total_steps, double min_lr) {
    check_step(step, "cosine");
    if (in_warmup(step, warmup_steps)) return warmup_lr(step, peak_lr, warmup_steps);
    if (step >= total_steps) return min_lr;
    // min + (peak − min)·½(1 + cos(π·progress)),  progress = (s − W)/(N − W) in (0, 1)
    const double progress = static_cast<double>(step - warmup_steps) / static_cast<double>(total_steps - warmup_steps);
    return min_lr + (peak_lr - min_lr) * 0.5 * (1 + std::cos(std::numbers::pi * progress));
}

double noam_lr(int64_t step, double scale, int64_t d_model, int64_t warmup_steps) {
    check_step(step, "noam");
    if (d_model < 1 || warmup_steps < 1)
        throw ValueError("noam schedule: d_model and warmup_steps must be ≥ 1, got " + std::to_string(d_model) +
                         " and " + std::to_string(warmup_steps));
    const double s = static_cast<double>(step), w = static_cast<double>(warmup_steps);
    // scale · d_model^−½ · min(s^−½, s·W^−³ᐟ²)
    return scale / std::sqrt(static_cast<double>(d_model)) * std::min(1 / std::sqrt(s), s / (w * std::sqrt(w)));
}

double scheduled_lr(const ScheduleConfig& schedule, double peak_lr, int64_t step) {
    switch (schedule.kind) {
        case ScheduleKind::constant: check_step(step, "constant"); return peak_lr;
        case ScheduleKind::linear:
            return linear_lr(step, peak_lr, schedule.warmup_steps, schedule.total_steps, schedule.min_lr);
        case ScheduleKind::cosine:
            return cosine_lr(step, peak_lr, schedule.warmup_steps, schedule.total_steps, schedule.min_lr);
        case ScheduleKind::noam: return noam_lr(step, schedule.scale, schedule.d_model, schedule.warmup_steps);
    }
    throw ValueError("scheduled_lr: unknown schedule kind");
}

namespace {
// Each parameter with a gradient once: a tied weight listed twice must be counted and scaled once.
std::vector<Tensor> with_grads(const std::vector<Tensor>& parameters) {
    std::vector<Tensor> unique;
    for (const Tensor& parameter : parameters) {
        if (!parameter.grad().defined()) continue;
        bool seen = false;
        for (const Tensor& kept : unique) seen = seen || kept.autograd_meta() == parameter.autograd_meta();
        if (!seen) unique.push_back(parameter);
    }
    return unique;
}
}  // namespace

double clip_grad_norm(const std::vector<Tensor>& parameters, double max_norm) {
    if (!(max_norm > 0)) throw ValueError("clip_grad_norm: max_norm must be > 0, got " + std::to_string(max_norm));
    std::vector<Tensor> targets = with_grads(parameters);
    double sum = 0;
    for (const Tensor& parameter : targets) {
        const Tensor grad = parameter.grad();
        sum += dispatch(grad.dtype(), [&](auto zero) {
            using T = decltype(zero);
            return sum_of_squares(grad.data<T>(), grad.numel());
        });
    }
    const double norm = std::sqrt(sum);  // ‖g‖ = √(Σ g²)
    if (!std::isfinite(norm)) return norm;
    const double coefficient = max_norm / (norm + 1e-6);  // g ← g·max_norm/(‖g‖ + 1e-6) when that shrinks g
    if (coefficient >= 1) return norm;
    NoGradGuard no_grad;
    for (Tensor& parameter : targets) parameter.set_grad(mul_scalar(parameter.grad(), coefficient));
    return norm;
}

}  // namespace tf::train
