// Decoding a split and scoring the text (decoding/decoded_eval.h).
#include "decoding/decoded_eval.h"

#include "autograd/error.h"
#include "datasets/batching.h"
#include "decoding/decoding.h"
#include "train/evaluate.h"

namespace tf::train {

DecodedEvaluation decode_and_score(LoadedRun& run, const std::vector<Example>& examples) {
    if (run.dataset.is_lm())
        throw ValueError("decoded scores need a target to compare with; a language model continues text instead "
                         "(its teacher-forced loss and perplexity are its scores)");
    const DecodeConfig& decode = run.config.decode;
    DecodeOptions options;
    options.max_length = decode.max_length;   // validated: within a transformer's positions
    options.cache = decode.cache;
    DecodedEvaluation result;
    result.beam_size = decode.beam_size;
    std::size_t next_example = 0;
    for (const Batch& batch : evaluation_batches(examples, run.config.data.batch_size, false)) {
        const ModelInput input = to_model_input(batch);
        const std::vector<std::vector<int64_t>> outputs =
            decode.beam_size > 1 ? beam_search(*run.model, input, options, {decode.beam_size, decode.length_penalty})
                                 : greedy_decode(*run.model, input, options);
        for (const std::vector<int64_t>& output : outputs) {
            result.hypotheses.push_back(run.dataset.tokenizer.decode(output));
            result.references.push_back(run.dataset.tokenizer.decode(examples[next_example++].tgt));
        }
    }
    result.scores = score_texts(result.hypotheses, result.references);
    return result;
}

}  // namespace tf::train
