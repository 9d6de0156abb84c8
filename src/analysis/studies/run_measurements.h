// What `compare` measures of one trained run (analysis/studies/compare_runs.h takes it): its size,
// speed, losses, test scores, curves, gradient stability, context and the viewer's maps.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/reports/attention_viewer.h"
#include "analysis/studies/gradient_probe.h"
#include "decoding/text_scores.h"
#include "train/metrics.h"

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
    // The test split as the model decodes it itself, scored (decoding/decoded_eval.h); NaN for a language model.
    train::TextScores decoded{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                              std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
    std::vector<double> loss_steps, losses, valid_steps, valid_accuracies, valid_losses;
    // The gradient's noise-to-signal ratio over each log window of training (train/gradient_noise_window.h);
    // empty for a run trained before it was logged.
    std::vector<double> noise_steps, noises;
    double steps = 0, max_steps = 0;   // the steps trained, and train.max_steps (the cap under a time or patience budget)
    // Gradient stability, scale-free (analysis/studies/gradient_noise.h): the noise-to-signal ratio of
    // kGradientNoiseMinibatches training minibatch gradients at the last checkpoint (the same step
    // for every run of a comparison), and the coefficient of variation of the logged gradient norm
    // over the second half of training.
    double gradient_noise = 0, grad_norm_cv = 0;
    // mean ‖∂L_i/∂x_j‖ over test examples at stream distance d = S − j + i (target i, source j; LM: i − j)
    std::vector<double> gradient_by_distance;
    std::vector<Matrix> kernels;   // dependency kernels of the first test examples (up to kViewerExamples)
    double receptive_field = 0;    // mean effective receptive field (positions), ε = 1%
    double input_length = 0;       // mean input positions of the probed examples
    // The share of the positions the task needs that the kernel reaches (analysis/studies/task_kernel.h),
    // mean over the probed examples; NaN for a task that needs no fixed positions (an LM).
    double needed_share = 0;
    std::vector<Matrix> ideal_kernels;  // the task's ideal kernel beside each of `kernels` (none for an LM)
    std::vector<ViewerExample> views;  // report.html's viewer: attention maps and the kernel, per example
};

}  // namespace tf
