// `tapeformer compare CONFIG --dry-run`: the runs a comparison would train, and about how long they
// take, before any of them starts. Nothing is written.
#pragma once
#include <string>
#include <vector>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_runs.h"

namespace tf {

struct RunEstimate {
    PlannedRun run;
    double step_seconds = 0;   // one training step of its model at its batch size and mean length
    double train_seconds = 0;  // step_seconds · max_steps, or the run's max_minutes when that is less
};

struct ComparisonPlan {
    std::vector<RunEstimate> runs;
    double train_seconds = 0;  // all of them, one after the other
    CompareBudget budget;      // under a time or until-plateau budget, the steps are a cap and the times an upper bound
};

// Plans the runs as `compare` would (into out_dir/runs) and times `steps` training steps of each
// variant (per sweep length) on random tokens of its examples' mean length (the longer of source and
// target), after one warm-up
// step: the training alone, without evaluation, checkpoints or the report's measurements.
ComparisonPlan plan_comparison(const CompareConfig& config, const std::string& out_dir, int steps = 3);

// One line per run (variant, seed, steps, directory, estimated time), then the total.
std::string plan_text(const ComparisonPlan& plan);

}  // namespace tf
