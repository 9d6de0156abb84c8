// Evaluation with teacher forcing: loss, perplexity, token accuracy, exact-sequence accuracy and
// accuracy by position over a split, without recording anything and with dropout off.
#pragma once
#include <vector>

#include "models/model.h"
#include "datasets/batching.h"
#include "train/metrics.h"

namespace tf::train {

ModelInput to_model_input(const Batch& batch);

// `max_batches` 0 means every batch. The model is put in eval mode and back in train mode after.
EvalMetrics evaluate(SequenceModel& model, const std::vector<Batch>& batches, int64_t max_batches = 0);

}  // namespace tf::train
