// Cutting a batch into micro-batches and ranks' shares.
#include "train/batch_shares.h"

namespace tf::train {

std::vector<BatchShare> shares_of_batch(const std::vector<int64_t>& batch, int64_t accumulate_steps, int rank, int ranks) {
    const auto n = static_cast<int64_t>(batch.size());
    std::vector<BatchShare> shares;
    for (int64_t micro = 0; micro < accumulate_steps; ++micro) {
        const int64_t micro_begin = micro * n / accumulate_steps, micro_end = (micro + 1) * n / accumulate_steps;
        const int64_t m = micro_end - micro_begin;
        const int64_t begin = micro_begin + rank * m / ranks, end = micro_begin + (rank + 1) * m / ranks;
        if (begin == end) continue;
        shares.push_back({std::vector<int64_t>(batch.begin() + begin, batch.begin() + end), begin});
    }
    return shares;
}

int64_t target_tokens(const std::vector<Example>& examples, const std::vector<int64_t>& batch, bool lm) {
    int64_t tokens = 0;
    for (const int64_t index : batch) {
        const Example& example = examples[static_cast<std::size_t>(index)];
        tokens += static_cast<int64_t>((lm ? example.src : example.tgt).size()) + 1;   // + <eos>
    }
    return tokens;
}

}  // namespace tf::train
