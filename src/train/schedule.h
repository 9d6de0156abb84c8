// Learning-rate schedules as pure functions of the step, and gradient clipping by global norm:
// what the trainer applies to the rate and the gradients before each optimizer step.
//
// Steps are 1-based: step s is the s-th update, so the trainer asks for
// scheduled_lr(config, lr, optimizer.step_count() + 1). Warmup therefore never wastes an update
// at rate 0: the first update runs at peak·1/W and update W at the peak.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "autograd/tensor.h"
#include "config/enum_names.h"

namespace tf::train {

// The schedule: "name" in the optimizer's schedule section.
enum class ScheduleKind { constant, linear, cosine, noam };
inline constexpr EnumName<ScheduleKind> kScheduleKindNames[] = {{ScheduleKind::constant, "constant"},
                                                                {ScheduleKind::linear, "linear"},
                                                                {ScheduleKind::cosine, "cosine"},
                                                                {ScheduleKind::noam, "noam"}};
inline std::span<const EnumName<ScheduleKind>> enum_names(ScheduleKind) { return kScheduleKindNames; }

struct ScheduleConfig {
    ScheduleKind kind = ScheduleKind::constant;
    int64_t warmup_steps = 0;  // W: linear ramp from peak/W to the peak over steps 1..W
    double min_lr = 0;         // the floor linear/cosine decay to, reached at total_steps
    int64_t total_steps = 1;   // linear/cosine: the step at which min_lr is reached
    double scale = 1;          // noam only
    int64_t d_model = 1;       // noam only
};

// lr(s) = peak·s/W                                    for s ≤ W
//       = min + (peak − min)·(N − s)/(N − W)          for W < s ≤ N
//       = min                                         for s > N
double linear_lr(int64_t step, double peak_lr, int64_t warmup_steps, int64_t total_steps, double min_lr);

// lr(s) = peak·s/W                                    for s ≤ W
//       = min + (peak − min)·½(1 + cos(π·(s − W)/(N − W)))   for W < s ≤ N
//       = min                                         for s > N
double cosine_lr(int64_t step, double peak_lr, int64_t warmup_steps, int64_t total_steps, double min_lr);

// "Attention Is All You Need", §5.3: lr(s) = scale · d_model^−½ · min(s^−½, s·W^−³ᐟ²),
// rising linearly to its peak scale·(d_model·W)^−½ at s = W, then falling as s^−½.
double noam_lr(int64_t step, double scale, int64_t d_model, int64_t warmup_steps);

// The rate for update `step` (≥ 1) under `schedule`; `peak_lr` is the optimizer's lr (unused by
// noam, whose rate is its own formula).
double scheduled_lr(const ScheduleConfig& schedule, double peak_lr, int64_t step);

// Global L2 norm of all gradients ‖g‖ = √(Σ_p Σ_i g_pi²). When max_norm/(‖g‖ + 1e-6) < 1 every
// gradient is multiplied by that factor, so the new norm is max_norm (to 1e-6 relative);
// otherwise they are left alone (PyTorch's clip_grad_norm_). Returns the norm before clipping.
// A NaN or infinite norm is returned as is and nothing is scaled, so the trainer can detect a
// non-finite gradient and skip the step. Parameters without a gradient are ignored.
// Each scaled gradient is a new tensor (set_grad), never written in place: the tape may have
// handed one gradient tensor to several parameters (add's backward does), and scaling it in
// place once per parameter would scale it several times.
double clip_grad_norm(const std::vector<Tensor>& parameters, double max_norm);

}  // namespace tf::train
