// Turning a trained model into text: greedy and beam search for seq2seq models, temperature /
// top-k sampling for the language model. All run without recording (NoGradGuard inside).
#pragma once
#include <vector>

#include "models/model.h"

namespace tf::train {

struct DecodeOptions {
    int64_t max_length = 128;  // generated tokens, not counting <bos>
    int64_t bos = 1, eos = 2;
};

// For each batch item, the argmax token at every step until <eos> (excluded) or max_length.
std::vector<std::vector<int64_t>> greedy_decode(SequenceModel& model, const ModelInput& input,
                                                const DecodeOptions& options);

struct BeamOptions {
    int64_t beam_size = 4;
    // GNMT length penalty: score / ((5 + length) / 6)^α; α = 0 ranks by total log-probability.
    double length_penalty = 0.6;
};
// Beam search, one batch item at a time (the beam is the batch).
std::vector<std::vector<int64_t>> beam_search(SequenceModel& model, const ModelInput& input,
                                              const DecodeOptions& options, const BeamOptions& beam);

struct SampleOptions {
    double temperature = 1.0;  // logits / τ before the softmax; τ → 0 approaches greedy
    int64_t top_k = 0;         // keep only the k most likely tokens (0 = all)
};
// Continues `prompt` (ids, without <bos>) by sampling from a language model.
std::vector<int64_t> sample_continuation(SequenceModel& model, const std::vector<int64_t>& prompt,
                                         const DecodeOptions& options, const SampleOptions& sample, Rng& rng);

// The rows `rows` of a batch, as a batch of their own (each source trimmed to its length).
ModelInput select_batch_rows(const ModelInput& input, const std::vector<int64_t>& rows);

}  // namespace tf::train
