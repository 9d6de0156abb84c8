// reconstruct and generate on a loaded run (decoding/run_decoding.h).
#include "decoding/run_decoding.h"

#include <algorithm>

#include "train/evaluate.h"

namespace tf::train {

DecodeOptions run_decode_options(const LoadedRun& run, const RunDecodeChoices& choices, int64_t prompt_length) {
    DecodeOptions options;
    const int64_t requested = choices.max_length > 0 ? choices.max_length : run.config.decode.max_length;
    options.max_length = run.config.model.type == ModelKind::rnn_seq2seq ? requested
                                                                         : std::min(requested, run.config.model.max_length - prompt_length);
    options.cache = choices.cache.value_or(run.config.decode.cache);
    return options;
}

void require_seq2seq(const LoadedRun& run, const std::string& run_dir) {
    if (run.dataset.is_lm()) throw ConfigError("reconstruct: " + run_dir + " is a language model; use `tapeformer generate`");
}

void require_language_model(const LoadedRun& run, const std::string& run_dir) {
    if (!run.dataset.is_lm())
        throw ConfigError("generate: " + run_dir + " is a sequence-to-sequence model; use `tapeformer reconstruct`");
}

std::vector<Example> typed_examples(const LoadedRun& run, const std::vector<std::string>& texts) {
    std::vector<Example> examples;
    for (const std::string& text : texts)
        examples.push_back({encode_typed_text(run.dataset.tokenizer, text, "reconstruct --input"), {}});
    return examples;
}

std::vector<std::vector<int64_t>> reconstruct_examples(LoadedRun& run, const std::vector<Example>& examples,
                                                       const RunDecodeChoices& choices, const ItemDecoded& on_item) {
    std::vector<int64_t> all(examples.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    const ModelInput input = to_model_input(make_batch(examples, all, false));
    const DecodeOptions options = run_decode_options(run, choices);
    const int64_t beam = choices.beam > 0 ? choices.beam : run.config.decode.beam_size;
    if (beam <= 1) return greedy_decode(*run.model, input, options, on_item);
    return beam_search(*run.model, input, options, {beam, run.config.decode.length_penalty}, on_item);
}

DecodeOptions generation_options(const LoadedRun& run, const RunDecodeChoices& choices, int64_t prompt_length) {
    const DecodeOptions options = run_decode_options(run, choices, prompt_length);
    if (options.max_length < 1)
        throw ValueError("generate: the prompt is " + std::to_string(prompt_length) + " tokens and, with <bos>, fills the model's " +
                         std::to_string(run.config.model.max_length) + " positions (model.max_length): nothing is left to generate");
    return options;
}

}  // namespace tf::train
