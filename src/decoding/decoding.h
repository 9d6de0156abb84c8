// Turning a trained model into text: greedy and beam search for seq2seq models, temperature /
// top-k / top-p sampling for the language model. All run without recording (NoGradGuard inside),
// with the model's key/value cache unless DecodeOptions::cache says otherwise.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/model.h"

namespace tf::train {

struct DecodeOptions {
    int64_t max_length = 128;  // generated tokens, not counting <bos>
    int64_t bos = 1, eos = 2;
    DecodeCache cache = DecodeCache::automatic;
};

// Called once per batch item as soon as its output is complete (item index, tokens without <bos>
// and <eos>), so a caller can show results while the others are still decoding.
using ItemDecoded = std::function<void(int64_t item, const std::vector<int64_t>& tokens)>;

// For each batch item, the argmax token at every step until <eos> (excluded) or max_length.
// Items of different source lengths decode together (padding hidden), each as it would alone.
std::vector<std::vector<int64_t>> greedy_decode(SequenceModel& model, const ModelInput& input,
                                                const DecodeOptions& options, const ItemDecoded& on_item = {});

struct BeamOptions {
    int64_t beam_size = 4;
    // GNMT length penalty: score / ((5 + length) / 6)^α; α = 0 ranks by total log-probability.
    double length_penalty = 0.6;
};
// Beam search, one batch item at a time (the beam is the batch; the cache's rows follow the
// surviving hypotheses). Throws ValueError for beam_size < 1.
std::vector<std::vector<int64_t>> beam_search(SequenceModel& model, const ModelInput& input,
                                              const DecodeOptions& options, const BeamOptions& beam,
                                              const ItemDecoded& on_item = {});

struct SampleOptions {
    double temperature = 1.0;  // logits / τ before the softmax; τ → 0 approaches greedy
    int64_t top_k = 0;         // keep only the k most likely tokens (0 = all)
    // Nucleus sampling (Holtzman et al. 2020): keep the most likely tokens whose probabilities,
    // after τ and top-k, first sum to ≥ top_p; 1 keeps all. In (0, 1].
    double top_p = 1.0;
};
// Why these options cannot be used ("top_p must be in (0, 1], got 0"), or empty.
std::string sample_options_problem(const SampleOptions& sample);

// Called with each sampled token as soon as it is drawn (streaming to a terminal).
using TokenSampled = std::function<void(int64_t token)>;

// Continues `prompt` (ids, without <bos>) by sampling from a language model: the prompt goes
// through the model in one step, then one token per step. Throws ValueError for bad options.
std::vector<int64_t> sample_continuation(SequenceModel& model, const std::vector<int64_t>& prompt,
                                         const DecodeOptions& options, const SampleOptions& sample, Rng& rng,
                                         const TokenSampled& on_token = {});

// The rows `rows` of a batch, as a batch of their own (each source trimmed to its length).
ModelInput select_batch_rows(const ModelInput& input, const std::vector<int64_t>& rows);

}  // namespace tf::train
