// eval's report (decoding/run_evaluation.h).
#include "decoding/run_evaluation.h"

#include "config/json_bytes.h"
#include "decoding/decoded_eval.h"
#include "train/evaluate.h"

namespace tf::train {

config::Json evaluation_report(LoadedRun& run, const std::string& run_dir, const std::string& split) {
    if (split != "test" && split != "valid" && split != "train")
        throw ValueError("eval --split: expected test, valid or train, got \"" + split + "\"");
    const auto& examples = split == "test" ? run.dataset.test : split == "valid" ? run.dataset.valid : run.dataset.train;
    // Metrics of no examples are not numbers: say so instead of printing nulls with exit 0.
    if (examples.empty())
        throw DataError("eval --split " + split + ": the " + split + " split of " + run_dir +
                        " has no examples (its config's data.train_fraction and data.valid_fraction, or "
                        "data.valid_size and data.test_size, leave it none)");
    const auto batches = evaluation_batches(examples, run.config.data.batch_size, run.dataset.is_lm());
    const EvalMetrics metrics = evaluate(*run.model, batches);
    config::Json result = {{"step", run.step},
                           {"split", split},
                           {"loss", metrics.loss},
                           {"perplexity", metrics.perplexity},
                           {"token_accuracy", metrics.token_accuracy},
                           {"sequence_accuracy", metrics.sequence_accuracy},
                           {"tokens", metrics.tokens},
                           {"sequences", metrics.sequences}};
    // Paths are bytes, not necessarily UTF-8, which a JSON string must be.
    config::set_text_field(result, "run", run_dir);
    config::set_text_field(result, "checkpoint", run.checkpoint);
    if (!run.dataset.is_lm()) {
        const DecodedEvaluation decoded = decode_and_score(run, examples);
        result["decoding"] = decoded.beam_size > 1 ? "beam " + std::to_string(decoded.beam_size) : "greedy";
        result["exact_match"] = decoded.scores.exact_match;
        result["cer"] = decoded.scores.cer;
        result["chrf"] = decoded.scores.chrf;
        result["bleu"] = decoded.scores.bleu;
    }
    return result;
}

}  // namespace tf::train
