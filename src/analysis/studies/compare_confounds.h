// Each verdict's known confound, on the page in words with its numbers: what else differs between
// the variants a measure compares besides the thing the measure is read as (docs/experiments.md,
// "Confounds"). Which confound a measure has is a column of analysis/run_measures.h.
//
// For the gradient's noise-to-signal ratio the confound is the loss: at the same step a model with
// a lower loss has a smaller mean gradient ḡ, so N = E‖g_b − ḡ‖²/‖ḡ‖² divides by less. The
// matched-loss measurement compares the two where their training losses are equal instead: with
// L* the lowest training loss both runs of a seed reach (the larger of their two minima), each run's
// ratio is read from the first log window (train/gradient_noise_window.h) whose loss is ≤ L*.
#pragma once
#include <string>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_columns.h"
#include "analysis/studies/run_measures.h"
#include "analysis/studies/seed_interval.h"

namespace tf {

struct MatchedNoise {
    double loss = 0;                        // L*, mean over seeds (nats per target token)
    double first_step = 0, second_step = 0; // mean step at which each variant first reached it
    SeedInterval ratio;                     // first's N / second's N at L*, over seeds (log scale)
};

// Over the seeds both variants ran; NaNs when neither logged its ratio along training.
MatchedNoise noise_at_matched_loss(const Runs& runs, const std::string& first, const std::string& second);

// The confound of a difference (or ratio) of a measure between `first` and `second`, in words with
// the comparison's numbers; `second` is "" for a measure of `first` alone.
std::string confound_text(Confound confound, const CompareConfig& config, const Runs& runs, const std::string& first,
                          const std::string& second);

}  // namespace tf
