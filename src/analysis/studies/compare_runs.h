// The measuring half of `compare`: one training run per (variant, seed), then the numbers the
// report shows, taken the same way for every run.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/run_measurements.h"
#include "train/run_config.h"
#include "train/trainer.h"
#include "util/stop_signals.h"

namespace tf {


// One run of a comparison: its validated config and its directory, runs_dir/<variant>-seed<k>,
// or runs_dir/<variant>-len<L>-seed<k> for a length sweep's run at data.max_length = L.
struct PlannedRun {
    train::RunConfig config;
    std::string dir;
    std::string variant;
    int64_t seed = 0;
    int64_t sweep_length = 0;   // the length sweep's max_length; 0: the comparison's own run
};

// One point of the length sweep: a run's test token accuracy at its inputs' mean length.
struct LengthPoint {
    std::string variant;
    int64_t seed = 0, max_length = 0;
    double input_length = 0;     // mean source length of its test split (an LM: of its sequences)
    double token_accuracy = 0;
    int64_t target_tokens = 0;   // the test target tokens token_accuracy counts (a perfect point's error is 0.5 / this)
    int64_t vocabulary = 0;      // the ids the model's output scores (chance token accuracy is 1 / this)
};

// Every variant and seed's run config, validated, before anything is written or trained: a bad
// variant is a ConfigError naming it, and the comparison's directory is not made.
std::vector<PlannedRun> plan_runs(const CompareConfig& config, const std::string& runs_dir);

// The runs (indices into the plan) that rank `rank` of `ranks` trains: every ranks-th from its own
// number. The plan lists a variant's seeds together, so each rank gets a mix of variants.
std::vector<std::size_t> runs_of_rank(std::size_t runs, int rank, int ranks);

// Trains or reuses this rank's share of the planned runs, each in this process alone, in order,
// each run's steps heard by `on_step` (if set). Returns the directory of the run a signal or
// on_step stopped (during it, after it saved, or before it started), or "" when the whole share is trained.
std::string train_share(const std::vector<PlannedRun>& runs, int rank, int ranks, bool quiet, const StopRequests& stop,
                        const train::StepListener& on_step = {});

// Measures every planned run of the comparison itself (not the sweep's), all trained, from its directory.
std::vector<RunMeasurements> measure_runs(const CompareConfig& config, const std::vector<PlannedRun>& runs);

// The length sweep's points, one per sweep run, all trained: test token accuracy of the best weights.
std::vector<LengthPoint> measure_length_sweep(const std::vector<PlannedRun>& runs);

}  // namespace tf
