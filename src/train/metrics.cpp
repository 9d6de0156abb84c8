// Accuracy counting.
#include "train/metrics.h"

#include <cmath>
#include <limits>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf::train {

void PredictionCounts::add(const Tensor& logits, const IndexTensor& targets, int64_t pad, double mean_loss) {
    if (logits.dim() != 3 || targets.shape != Shape{logits.size(0), logits.size(1)})
        throw ShapeError("metrics: logits " + to_string(logits.shape()) + " and targets " + to_string(targets.shape) +
                         " must be (B, T, V) and (B, T)");
    const int64_t B = targets.shape[0], T = targets.shape[1];
    if (static_cast<int64_t>(total_at.size()) < T) total_at.resize(T, 0), correct_at.resize(T, 0);
    const IndexTensor predicted = argmax(logits);  // (B, T)
    int64_t batch_tokens = 0;
    for (int64_t b = 0; b < B; ++b) {
        bool all_right = true;
        for (int64_t t = 0; t < T; ++t) {
            const int64_t target = targets.values[b * T + t];
            if (target == pad) continue;
            const bool right = predicted.values[b * T + t] == target;
            ++batch_tokens;
            ++total_at[t];
            correct_at[t] += right;
            correct_tokens += right;
            all_right = all_right && right;
        }
        ++sequences;
        correct_sequences += all_right;
    }
    tokens += batch_tokens;
    loss_sum += mean_loss * static_cast<double>(batch_tokens);
}

void PredictionCounts::merge(const PredictionCounts& other) {
    loss_sum += other.loss_sum;
    tokens += other.tokens;
    correct_tokens += other.correct_tokens;
    sequences += other.sequences;
    correct_sequences += other.correct_sequences;
    if (total_at.size() < other.total_at.size()) total_at.resize(other.total_at.size(), 0), correct_at.resize(other.total_at.size(), 0);
    for (std::size_t t = 0; t < other.total_at.size(); ++t) total_at[t] += other.total_at[t], correct_at[t] += other.correct_at[t];
}

EvalMetrics summarize(const PredictionCounts& counts) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EvalMetrics metrics;
    metrics.tokens = counts.tokens;
    metrics.sequences = counts.sequences;
    metrics.loss = counts.tokens ? counts.loss_sum / static_cast<double>(counts.tokens) : nan;
    metrics.perplexity = std::exp(metrics.loss);
    metrics.token_accuracy = counts.tokens ? static_cast<double>(counts.correct_tokens) / static_cast<double>(counts.tokens) : nan;
    metrics.sequence_accuracy =
        counts.sequences ? static_cast<double>(counts.correct_sequences) / static_cast<double>(counts.sequences) : nan;
    for (std::size_t t = 0; t < counts.total_at.size(); ++t)
        metrics.accuracy_by_position.push_back(
            counts.total_at[t] ? static_cast<double>(counts.correct_at[t]) / static_cast<double>(counts.total_at[t]) : nan);
    metrics.tokens_by_position = counts.total_at;
    return metrics;
}

}  // namespace tf::train
