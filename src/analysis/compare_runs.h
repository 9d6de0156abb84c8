// The measuring half of `compare`: one training run per (variant, seed), then the numbers the
// report shows, taken the same way for every run.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "analysis/attention_viewer.h"
#include "analysis/compare.h"
#include "analysis/gradient_probe.h"
#include "train/metrics.h"
#include "train/run_config.h"
#include "train/text_scores.h"
#include "util/stop_signals.h"

namespace tf {

// The test examples report.html's viewer shows (the first ones, of those the kernels probed).
constexpr int64_t kViewerExamples = 3;
// The minibatches whose gradients the noise-to-signal ratio compares; every run draws the same ones.
constexpr int64_t kGradientNoiseMinibatches = 16;

struct RunMeasurements {
    std::string variant, dir;
    int64_t seed = 0;
    double parameters = 0;         // trainable scalars
    double flops_per_token = 0;    // matmul FLOPs of one training step (forward + backward) per target token
    double train_seconds = 0, tokens_per_second = 0, final_train_loss = 0;
    double best_valid_loss = 0;    // the validation loss of the best checkpoint, the one tested (NaN: never validated)
    train::EvalMetrics test;       // best weights, test split
    // The test split as the model decodes it itself, scored (train/decoded_eval.h); NaN for a language model.
    train::TextScores decoded{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    std::vector<double> loss_steps, losses, valid_steps, valid_accuracies, valid_losses;
    // The gradient's noise-to-signal ratio over each log window of training (train/gradient_noise_window.h);
    // empty for a run trained before it was logged.
    std::vector<double> noise_steps, noises;
    double steps = 0, max_steps = 0;   // the steps trained, and train.max_steps (the cap under a time or patience budget)
    // Gradient stability, scale-free (analysis/gradient_noise.h): the noise-to-signal ratio of
    // kGradientNoiseMinibatches training minibatch gradients at the last checkpoint (the same step
    // for every run of a comparison), and the coefficient of variation of the logged gradient norm
    // over the second half of training.
    double gradient_noise = 0, grad_norm_cv = 0;
    // mean ‖∂L_i/∂x_j‖ over test examples at stream distance d = S − j + i (target i, source j; LM: i − j)
    std::vector<double> gradient_by_distance;
    std::vector<Matrix> kernels;   // dependency kernels of the first test examples (up to kViewerExamples)
    double receptive_field = 0;    // mean effective receptive field (positions), ε = 1%
    double input_length = 0;       // mean input positions of the probed examples
    // The share of the positions the task needs that the kernel reaches (analysis/task_kernel.h),
    // mean over the probed examples; NaN for a task that needs no fixed positions (an LM).
    double needed_share = 0;
    std::vector<Matrix> ideal_kernels;  // the task's ideal kernel beside each of `kernels` (none for an LM)
    std::vector<ViewerExample> views;  // report.html's viewer: attention maps and the kernel, per example
};

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

// Trains or reuses this rank's share of the planned runs, each in this process alone, in order.
// Returns the directory of the run a signal stopped (during it, after it saved, or before it
// started), or "" when the whole share is trained.
std::string train_share(const std::vector<PlannedRun>& runs, int rank, int ranks, bool quiet, const StopRequests& stop);

// Measures every planned run of the comparison itself (not the sweep's), all trained, from its directory.
std::vector<RunMeasurements> measure_runs(const CompareConfig& config, const std::vector<PlannedRun>& runs);

// The length sweep's points, one per sweep run, all trained: test token accuracy of the best weights.
std::vector<LengthPoint> measure_length_sweep(const std::vector<PlannedRun>& runs);

}  // namespace tf
