// Batching: padding examples to a rectangle with masks, adding <bos>/<eos>, and a Batcher that
// shuffles (and optionally buckets by length) each epoch from a seed, with a state that can be
// saved and restored so a resumed run sees exactly the batches it would have seen.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/random.h"
#include "autograd/tensor.h"
#include "datasets/dataset.h"

namespace tf::train {

// seq2seq (src → tgt):            src    = x_1 … x_S                       (B, S)
//                                 tgt_in = <bos> y_1 … y_T'                (B, T),  T = max T' + 1
//                                 tgt_out = y_1 … y_T' <eos>               (B, T)
// lm (the example's src is the sequence x_1 … x_n; its tgt is ignored): next-token prediction on
// s = <bos> x_1 … x_n <eos>:  tgt_in = s[:-1] = <bos> x_1 … x_n,  tgt_out = s[1:] = x_1 … x_n <eos>;
// src is empty, (B, 0), with src_lengths 0.
// Rows are padded with <pad> = 0 on the right, so cross_entropy(…, ignore_index = 0) skips the
// padded targets; the masks hold 1 at padded positions and 0 elsewhere.
struct Batch {
    IndexTensor src;                  // (B, S)
    IndexTensor tgt_in;               // (B, T)
    IndexTensor tgt_out;              // (B, T)
    std::vector<int64_t> src_lengths;  // non-pad positions of each src row
    std::vector<int64_t> tgt_lengths;  // non-pad positions of each tgt_in / tgt_out row (T' + 1)
    Tensor src_padding_mask;          // (B, S) f32, 1 = pad
    Tensor tgt_padding_mask;          // (B, T) f32, 1 = pad
    int64_t tokens = 0;               // non-pad targets: Σ tgt_lengths
    int64_t size() const { return static_cast<int64_t>(src_lengths.size()); }
};

// The batch of examples[indices[0]], examples[indices[1]], …
Batch make_batch(const std::vector<Example>& examples, const std::vector<int64_t>& indices, bool lm);
// Every example once, in order, `batch_size` at a time (the last batch may be smaller): for evaluation.
std::vector<Batch> evaluation_batches(const std::vector<Example>& examples, int64_t batch_size, bool lm);

struct BatcherOptions {
    int64_t batch_size = 32;
    bool shuffle = true;          // false: dataset order every epoch
    bool bucket = false;          // sort by length within chunks, then shuffle the batch order
    int64_t bucket_batches = 50;  // chunk size, in batches
    uint64_t seed = 1;
    bool lm = false;
};

// Where a Batcher is: the epoch, the next batch within it, and the Rng state at the start of the
// epoch (the epoch's order is re-derived from it on restore).
struct BatcherState {
    int64_t epoch = 0;
    int64_t position = 0;
    Rng::State rng{};
    bool operator==(const BatcherState&) const = default;
    // {"epoch": 3, "position": 17, "rng": ["0x…", "0x…", "0x…", "0x…"]} (hex: JSON numbers lose
    // 64-bit precision in many readers). from_json errors name `source` and the field.
    nlohmann::json to_json() const;
    static BatcherState from_json(const nlohmann::json& json, const std::string& source);
};

// An endless stream of training batches over one split (which it copies).
class Batcher {
public:
    Batcher(std::vector<Example> examples, BatcherOptions options);

    Batch next();  // the next batch; after the last of an epoch, the next epoch begins
    // The next batch's example indices into examples(), as next() would batch them.
    std::vector<int64_t> next_indices();
    const std::vector<Example>& examples() const { return examples_; }
    int64_t epoch() const { return epoch_; }
    int64_t position() const { return position_; }
    int64_t batches_per_epoch() const { return static_cast<int64_t>(plan_.size()); }
    // The example indices of each batch of the current epoch, in the order next() serves them.
    const std::vector<std::vector<int64_t>>& epoch_plan() const { return plan_; }

    BatcherState state() const { return {epoch_, position_, epoch_start_rng_}; }
    void restore(const BatcherState& state);  // throws ValueError if it does not fit this split

private:
    void plan_epoch();  // draws the current epoch's batches from rng_
    std::vector<std::vector<int64_t>> cut_into_batches(const std::vector<int64_t>& order) const;
    std::pair<std::size_t, std::size_t> length_key(int64_t index) const;  // (src, tgt) lengths

    std::vector<Example> examples_;
    BatcherOptions options_;
    Rng rng_;
    Rng::State epoch_start_rng_{};
    int64_t epoch_ = 0, position_ = 0;
    std::vector<std::vector<int64_t>> plan_;
};

}  // namespace tf::train
