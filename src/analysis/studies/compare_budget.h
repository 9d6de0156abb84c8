// What a comparison holds equal across its variants (docs/experiments.md, "Budgets"). By default
// every run takes the same number of training steps (train.max_steps). A config's "budget" may
// instead give every run the same wall-clock minutes, the same matmul FLOPs of training, or let
// each run train until its validation loss stops improving; in those three train.max_steps stays
// the cap. Equal steps favour a model that learns fast per step; equal FLOPs, one that is cheap
// per step; until-plateau asks what each reaches when it has what it needs.
#pragma once
#include <string>

#include "config/json_reader.h"
#include "models/model.h"
#include "datasets/batching.h"
#include "train/run_config.h"

namespace tf {

enum class BudgetKind { steps, minutes, flops, until_plateau };

struct CompareBudget {
    BudgetKind kind = BudgetKind::steps;
    // steps: the steps of every run (0: each run's train.max_steps as its config gives it); minutes;
    // matmul FLOPs of training; until_plateau: train.patience, in evaluations.
    double amount = 0;
};

// {"steps": N}, {"minutes": M}, {"flops": F} or {"until_plateau": P}: exactly one key.
CompareBudget read_budget(config::JsonReader& reader);

// Matmul FLOPs (forward and backward) of one training step of `model` on `batch`, per target token.
double training_flops_per_token(SequenceModel& model, const train::Batch& batch);

// Matmul FLOPs of one training step of `run`: those of its first training
// batch per target token, times the mean target tokens of a batch. 0 when it has no training data.
double training_flops_per_step(const train::RunConfig& run);

// Writes the budget into one run's "train" section. `flops_per_step` is read by a FLOPs budget
// only: its run gets max_steps = ⌊F / flops_per_step⌋ (at least 1).
void apply_budget(const CompareBudget& budget, double flops_per_step, config::Json& train);

// "equal steps", "equal wall-clock minutes (2 each)", … — what the report says was held equal.
std::string budget_text(const CompareBudget& budget);

}  // namespace tf
