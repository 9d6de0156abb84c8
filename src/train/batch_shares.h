// One step's batch cut into the pieces this process runs. Gradient accumulation cuts the batch
// into k micro-batches, run one after the other; data parallelism shares each micro-batch out among
// N ranks. Every piece knows where its first example sits in the whole batch (dropout masks depend
// on it, autograd/dropout_mask.h), and the loss of each piece is weighted by its share of the
// batch's target tokens, so the summed gradient is the whole batch's.
#pragma once
#include <cstdint>
#include <vector>

#include "datasets/dataset.h"

namespace tf::train {

struct BatchShare {
    std::vector<int64_t> examples;  // example indices of the split, in the batch's order
    int64_t first_row = 0;          // where examples[0] sits in the whole batch
};

// The non-empty pieces rank `rank` of `ranks` runs for a batch of `batch` examples (indices into the
// split), in order. Micro-batch j of k is rows [⌊j·n/k⌋, ⌊(j+1)·n/k⌋) of the n examples; rank r
// takes rows [⌊r·m/N⌋, ⌊(r+1)·m/N⌋) of each micro-batch of m rows. Together the ranks' pieces cover
// the batch once.
std::vector<BatchShare> shares_of_batch(const std::vector<int64_t>& batch, int64_t accumulate_steps, int rank, int ranks);

// Σ over the batch's examples of its target tokens (y_1 … y_T' <eos>): the count the loss is averaged over.
int64_t target_tokens(const std::vector<Example>& examples, const std::vector<int64_t>& batch, bool lm);

}  // namespace tf::train
