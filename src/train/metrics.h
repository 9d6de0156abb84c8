// Counting what a model got right: token accuracy, exact-sequence accuracy and accuracy by target
// position, accumulated over batches and turned into the numbers `eval` prints.
#pragma once
#include <vector>

#include "autograd/tensor.h"

namespace tf::train {

struct PredictionCounts {
    double loss_sum = 0;            // Σ over batches of (mean loss × tokens), so the total is token-weighted
    int64_t tokens = 0;             // targets that are not padding
    int64_t correct_tokens = 0;
    int64_t sequences = 0;
    int64_t correct_sequences = 0;  // every non-padding target right
    std::vector<int64_t> correct_at, total_at;  // by target position t

    // Adds one batch: argmax of logits (B, T, V) against targets (B, T); targets equal to `pad` are skipped.
    void add(const Tensor& logits, const IndexTensor& targets, int64_t pad, double mean_loss);
    void merge(const PredictionCounts& other);
};

struct EvalMetrics {
    double loss = 0, perplexity = 0, token_accuracy = 0, sequence_accuracy = 0;
    int64_t tokens = 0, sequences = 0;
    std::vector<double> accuracy_by_position;  // NaN where no target had that position
    std::vector<int64_t> tokens_by_position;   // the targets each accuracy counts (its sample size)
};

// loss = loss_sum / tokens,  perplexity = e^loss,  accuracies = correct / total.
EvalMetrics summarize(const PredictionCounts& counts);

}  // namespace tf::train
