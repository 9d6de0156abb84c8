// Runs that compute each batch in pieces — k micro-batches (gradient accumulation) or N ranks (data
// parallel) — against the run that computes it whole: the same losses and parameters, up to the
// order float sums are taken in. Shared by the accumulation tests and the MPI tests.
#pragma once
#include <string>

#include "config/json_reader.h"
#include "train/run_config.h"

namespace tf::test {

// A transformer and a GRU with additive attention, both with dropout (so the masks must match too).
extern const config::Json kPiecesTransformer;
extern const config::Json kPiecesGruAttention;

// A copy-task run of `model` with batches of 8, one kernel thread, SGD with momentum, logging every step.
train::RunConfig pieces_run(const config::Json& model, int64_t max_steps, int64_t accumulate_steps = 1);

// The largest gap between two finished runs: of the losses logged at each step, |a − b| / |a|, and
// of their latest checkpoints' parameters taken as one vector, ‖θ_a − θ_b‖ / ‖θ_a‖. Fails (REQUIRE)
// if the runs logged different steps or saved different tensors.
double largest_relative_gap(const std::string& run_dir_a, const std::string& run_dir_b);

}  // namespace tf::test
