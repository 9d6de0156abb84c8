// The run config's "optimizer" section: which optimizer, its hyperparameters, gradient clipping
// and the learning-rate schedule, read strictly (errors name the JSON path), and the factory that
// turns it into an Optimizer. Every key is documented in docs/config/optimizer.md.
#pragma once
#include <memory>
#include <optional>
#include <span>

#include "config/json_reader.h"
#include "train/optimizer.h"
#include "train/schedule.h"

namespace tf::train {

// The optimizer: "name" in the optimizer section.
enum class OptimizerKind { sgd, adam, adamw };
inline constexpr EnumName<OptimizerKind> kOptimizerKindNames[] = {
    {OptimizerKind::sgd, "sgd"}, {OptimizerKind::adam, "adam"}, {OptimizerKind::adamw, "adamw"}};
inline std::span<const EnumName<OptimizerKind>> enum_names(OptimizerKind) { return kOptimizerKindNames; }

struct OptimConfig {
    OptimizerKind kind = OptimizerKind::adamw;
    double lr = 1e-3;            // the peak rate the schedule scales (noam ignores it)
    double beta1 = 0.9;          // adam, adamw
    double beta2 = 0.999;        // adam, adamw
    double eps = 1e-8;           // adam, adamw
    double weight_decay = 0;     // sgd, adam: coupled (λ·p added to g); adamw: decoupled
    double momentum = 0;         // sgd
    bool nesterov = false;       // sgd
    std::optional<double> clip_grad_norm;  // max global gradient norm; none: no clipping
    ScheduleConfig schedule;

    // Reads the "optimizer" object (the reader is the section's own) and rejects keys nobody
    // read or that the chosen optimizer/schedule does not use. `max_steps` is the run's length,
    // the default of schedule.total_steps.
    static OptimConfig from_json(config::JsonReader& reader, int64_t max_steps);
    // The resolved section, every default filled in: from_json(to_json()) gives the same config.
    config::Json to_json() const;
    // The rate for update `step` (1-based): scheduled_lr(schedule, lr, step).
    double lr_at(int64_t step) const { return scheduled_lr(schedule, lr, step); }
};

std::unique_ptr<Optimizer> make_optimizer(const OptimConfig& config, const NamedParameters& parameters);

}  // namespace tf::train
