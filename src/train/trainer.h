// The training loop: batches → forward → loss → backward → clip → optimizer step, with logging,
// evaluation, best-model tracking, checkpoints, exact resume, and a clean stop on SIGINT/SIGTERM
// (in a program whose main() called receive_stop_signals_on_own_thread(), util/stop_signals.h).
// The trainer knows the model only through SequenceModel and the loss.
#pragma once
#include <functional>
#include <span>
#include <string>

#include "config/enum_names.h"
#include "distributed/communicator.h"
#include "train/metrics.h"
#include "train/run_config.h"

namespace tf::train {

// How the ranks' gradients are summed: the same sums either way (tested equal).
enum class GradientSum {
    during_backward,   // in buckets, each started once its gradients are final (train/gradient_buckets.h)
    after_backward,    // one flat buffer once the backward pass is done: the readable way (train/gradient_sum.h)
};
inline constexpr EnumName<GradientSum> kGradientSumNames[] = {{GradientSum::during_backward, "during-backward"},
                                                              {GradientSum::after_backward, "after-backward"}};
inline std::span<const EnumName<GradientSum>> enum_names(GradientSum) { return kGradientSumNames; }

// What a caller hears after each step: {"step", "loss" (this step's batch), "lr", "grad_norm" (before
// clipping), "tokens"}, and at an evaluation step "valid_loss", "valid_perplexity",
// "valid_token_accuracy" and "valid_sequence_accuracy". It returns false to stop the run there,
// saved as a signal would leave it (resumable). The Python module passes one (src/python/).
using StepListener = std::function<bool(const config::Json& step_metrics)>;

struct TrainOptions {
    std::string run_dir{};      // default: runs/<config name>
    bool resume = false;        // continue the run in run_dir from its latest checkpoint
    std::string init_weights{}; // start from these weights (safetensors), optional
    bool check_numerics = false;
    bool quiet = false;         // no progress output (tests)
    // The processes that share each batch (data parallel; rank 0 alone logs, evaluates and saves).
    // nullptr: this process alone.
    distributed::Communicator* ranks = nullptr;
    GradientSum gradient_sum = GradientSum::during_backward;
    StepListener on_step{};     // optional; one process only (refused with several ranks)
};

struct TrainResult {
    int stop_signal = 0;        // SIGINT or SIGTERM when one stopped the run (after saving); 0 when it ran to its end
    bool stopped_by_caller = false;   // on_step returned false (the run saved, as for a signal)
    int64_t steps = 0;
    EvalMetrics valid;          // at the end
    std::string run_dir;
};

TrainResult train(const RunConfig& config, const TrainOptions& options);

}  // namespace tf::train
