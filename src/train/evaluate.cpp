// Teacher-forced evaluation.
#include "train/evaluate.h"

#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf::train {

ModelInput to_model_input(const Batch& batch) {
    return {batch.src, batch.src_lengths, batch.src_padding_mask, batch.tgt_in, batch.tgt_lengths, batch.tgt_padding_mask};
}

EvalMetrics evaluate(SequenceModel& model, const std::vector<Batch>& batches, int64_t max_batches) {
    NoGradGuard no_grad;
    const bool was_training = model.training();
    model.eval();
    PredictionCounts counts;
    int64_t seen = 0;
    for (const Batch& batch : batches) {
        if (max_batches > 0 && seen++ == max_batches) break;
        const Tensor logits = model.forward(to_model_input(batch));  // (B, T, V)
        const double loss = cross_entropy(logits, batch.tgt_out, {kPadId, 0.0}).item();
        counts.add(logits, batch.tgt_out, kPadId, loss);
    }
    model.train(was_training);
    return summarize(counts);
}

}  // namespace tf::train
