// A comparison config, read and validated (docs/experiments.md, "The comparison config"): the
// shared data, optimizer and train sections, the variants, the budget, the predictions (built-in
// and the config's own), the length sweep and how much analysis to do.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/studies/compare_budget.h"
#include "autograd/kernels/mode.h"
#include "config/json_reader.h"

namespace tf {

struct CompareVariant {
    std::string name;
    config::Json model;               // a "model" section
    config::Json optimizer, train;    // optional per-variant overrides (merged over the shared ones)
};

// The two variants the predictions of docs/math/theory.md §7 compare: a pure RNN and an attention model.
struct PredictionVariants {
    std::string baseline, attention;
};

// A prediction the config states itself, before the runs (docs/experiments.md, "Your own
// predictions"): a claim in the student's words, and the range [low, high] it commits to for
//     d_s = m(first, seed s) − m(second, seed s),
// m one of the per-run measures of analysis/studies/run_measures.h, the two variants' runs paired by seed.
struct OwnPrediction {
    std::string claim;
    std::string measure;          // a RunMeasure's name
    std::string first, second;    // the difference is first − second
    double low = 0, high = 0;     // the predicted range of the difference, low ≤ high, both finite
};

// Every variant trained again at each of several maximum input lengths (data.max_length), tested,
// and its test accuracy plotted against input length, with every variant's decay constant τ
// fitted per seed (analysis/studies/length_sweep.h, analysis/studies/error_growth_seeds.h).
struct LengthSweep {
    std::vector<int64_t> max_lengths;   // increasing
};

struct CompareConfig {
    std::string name;
    std::vector<int64_t> seeds = {1};
    config::Json data, optimizer, train;  // shared by every variant
    CompareBudget budget;                 // what every variant gets equally (default: train.max_steps)
    kernels::KernelPath kernels = kernels::KernelPath::fast;   // every run's "kernels" (train/run_config.h)
    std::vector<CompareVariant> variants;
    std::optional<PredictionVariants> predictions;  // absent: the report judges none of the built-in predictions
    std::vector<OwnPrediction> own_predictions;     // the config's own, in its order (judged whenever listed)
    std::optional<LengthSweep> length_sweep;        // absent: no sweep
    int64_t examples = 8;                 // test examples for the gradient probes
    int64_t probes = 4;                   // random projections for the dependency kernel
    config::Json resolved;
};

CompareConfig load_compare_config(const std::string& path, const std::vector<std::string>& overrides);
// The same for a config already parsed (the Python module's dict), named `default_name` unless it says.
CompareConfig compare_config_from_json(config::Json root, const std::vector<std::string>& overrides, const std::string& default_name);

}  // namespace tf
