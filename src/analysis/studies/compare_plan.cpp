// The runs of a comparison and their estimated training time (analysis/studies/compare_plan.h).
#include "analysis/studies/compare_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "analysis/machine/throughput.h"
#include "datasets/dataset.h"

namespace tf {

namespace {

// "45 s", "3 min 5 s", "1 h 2 min".
std::string duration_text(double seconds) {
    const auto whole = static_cast<int64_t>(std::llround(seconds));
    if (whole < 60) return std::to_string(whole) + " s";
    if (whole < 3600) return std::to_string(whole / 60) + " min " + std::to_string(whole % 60) + " s";
    return std::to_string(whole / 3600) + " h " + std::to_string(whole / 60 % 60) + " min";
}

// The mean length of the training examples (the longer of source and target), at least 1: the T
// of a typical batch, which the timed steps use for both.
int64_t mean_length(const train::RunConfig& run) {
    const train::Dataset data = train::load_dataset(run.data);
    double total = 0;
    for (const train::Example& example : data.train) total += static_cast<double>(std::max(example.src.size(), example.tgt.size()));
    return std::max<int64_t>(1, std::llround(total / static_cast<double>(std::max<std::size_t>(1, data.train.size()))));
}

}  // namespace

ComparisonPlan plan_comparison(const CompareConfig& config, const std::string& out_dir, int steps) {
    ComparisonPlan plan;
    plan.budget = config.budget;
    std::map<std::pair<std::string, int64_t>, double> step_seconds;   // (variant, sweep length) → seconds
    std::map<int64_t, int64_t> lengths;                               // sweep length → mean example length
    for (PlannedRun& run : plan_runs(config, out_dir + "/runs")) {
        const auto key = std::make_pair(run.variant, run.sweep_length);
        if (!step_seconds.contains(key)) {
            if (!lengths.contains(run.sweep_length)) lengths[run.sweep_length] = mean_length(run.config);
            const analysis::Workload workload{run.variant, run.config.model, run.config.data.batch_size, lengths[run.sweep_length]};
            step_seconds[key] = analysis::measure_training(workload, {.warmup = 1, .steps = steps}).step.median;
        }
        RunEstimate estimate{std::move(run), step_seconds[key], 0};
        estimate.train_seconds = estimate.step_seconds * static_cast<double>(estimate.run.config.train.max_steps);
        if (estimate.run.config.train.max_minutes > 0)
            estimate.train_seconds = std::min(estimate.train_seconds, estimate.run.config.train.max_minutes * 60.0);
        plan.train_seconds += estimate.train_seconds;
        plan.runs.push_back(std::move(estimate));
    }
    return plan;
}

std::string plan_text(const ComparisonPlan& plan) {
    std::string text;
    for (const RunEstimate& estimate : plan.runs) {
        char line[160];
        std::snprintf(line, sizeof line, "%-20s seed %-4lld %6lld steps  %8.1f ms a step  ~%s", estimate.run.variant.c_str(),
                      static_cast<long long>(estimate.run.seed), static_cast<long long>(estimate.run.config.train.max_steps),
                      estimate.step_seconds * 1e3, duration_text(estimate.train_seconds).c_str());
        text += std::string(line) + (estimate.run.sweep_length > 0 ? "  (sweep max_length " + std::to_string(estimate.run.sweep_length) + ")" : "") +
                "  " + estimate.run.dir + "\n";
    }
    text += "Budget: " + budget_text(plan.budget);
    if (plan.budget.kind == BudgetKind::minutes || plan.budget.kind == BudgetKind::until_plateau)
        text += "; the steps above are each run's cap (train.max_steps) and the times an upper bound";
    text += '\n';
    text += std::to_string(plan.runs.size()) + " runs, about " + duration_text(plan.train_seconds) +
            " of training one after the other (3 timed steps a variant on random tokens of the examples' mean length;"
            " evaluation, checkpoints and the report's measurements come on top)\n";
    return text;
}

}  // namespace tf
