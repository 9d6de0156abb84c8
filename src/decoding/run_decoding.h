// `reconstruct` and `generate` on a loaded run, shared by the CLI and the Python module: the run's
// decode section says how (greedy or beam, how long, with a key/value cache or not) unless a
// choice here says otherwise.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "decoding/decoding.h"
#include "train/run_loader.h"

namespace tf::train {

struct RunDecodeChoices {
    int64_t beam = 0;                  // 0: the run's decode.beam_size (1 is greedy)
    int64_t max_length = 0;            // 0: the run's decode.max_length
    std::optional<DecodeCache> cache;  // none: the run's decode.cache
};

// The decoding options for a run: how many tokens (capped where a transformer runs out of
// positions: its decoder sees <bos>, any prompt of `prompt_length` tokens, and every token
// generated so far) and which cache.
DecodeOptions run_decode_options(const LoadedRun& run, const RunDecodeChoices& choices, int64_t prompt_length = 0);

// ConfigError naming run_dir when the run is a language model (reconstruct) / a seq2seq model (generate).
void require_seq2seq(const LoadedRun& run, const std::string& run_dir);
void require_language_model(const LoadedRun& run, const std::string& run_dir);

// Typed texts as examples to reconstruct (no target): each must hold a token (ValueError naming
// "reconstruct --input" otherwise).
std::vector<Example> typed_examples(const LoadedRun& run, const std::vector<std::string>& texts);

// Decodes the examples in one batch with greedy or beam search, handing each item to on_item as
// soon as it is done. Returns each example's tokens, without <bos> and <eos>.
std::vector<std::vector<int64_t>> reconstruct_examples(LoadedRun& run, const std::vector<Example>& examples,
                                                       const RunDecodeChoices& choices, const ItemDecoded& on_item = {});

// generate's options for a prompt of `prompt_length` tokens (then sample_continuation, decoding.h);
// ValueError when the prompt leaves no position to generate into.
DecodeOptions generation_options(const LoadedRun& run, const RunDecodeChoices& choices, int64_t prompt_length);

}  // namespace tf::train
