// eval's decoded half: every example of a split decoded as the run's decode section says (greedy,
// or beam search), in order, the text scored against the targets' text; a language model, which
// has no target to write, gets its teacher-forced scores only.
#include "catch.h"

#include <nlohmann/json.hpp>

#include "autograd/error.h"
#include "run_helpers.h"
#include "datasets/batching.h"
#include "decoding/decoded_eval.h"
#include "decoding/decoding.h"
#include "train/evaluate.h"
#include "train/trainer.h"
#include "source_paths.h"

using namespace tf;
using namespace tf::train;

namespace {
const std::string kShippedConfigs = std::string(TF_SOURCE_DIR) + "/configs/";
}

TEST_CASE("decode_and_score writes each example's text as decoding it alone would, greedy or by beam, and scores it",
          "[integration]") {
    test::TempDir dir;
    train::train(load_run_config(kShippedConfigs + "copy_transformer.json",
                                 {"threads=1", "train.max_steps=40", "train.eval_every=0", "train.checkpoint_every=0",
                                  "optimizer.schedule.warmup_steps=10", "data.test_size=10", "data.batch_size=4"}),
                 {.run_dir = dir.path(), .quiet = true});
    LoadedRun run = load_run(dir.path());
    const std::vector<Example>& test = run.dataset.test;
    const DecodedEvaluation greedy = decode_and_score(run, test);   // three batches: 4, 4 and 2
    REQUIRE(greedy.hypotheses.size() == test.size());
    CHECK(greedy.beam_size == 1);
    DecodeOptions alone;
    alone.max_length = run.config.decode.max_length;
    for (std::size_t i = 0; i < test.size(); ++i) {
        INFO("example " << i);
        CHECK(greedy.references[i] == run.dataset.tokenizer.decode(test[i].tgt));
        const ModelInput input = to_model_input(make_batch(test, {static_cast<int64_t>(i)}, false));
        CHECK(greedy.hypotheses[i] == run.dataset.tokenizer.decode(greedy_decode(*run.model, input, alone).front()));
    }
    const TextScores expected = score_texts(greedy.hypotheses, greedy.references);
    CHECK(greedy.scores.cer == expected.cer);
    CHECK(greedy.scores.chrf == expected.chrf);
    run.config.decode.beam_size = 3;
    const DecodedEvaluation beam = decode_and_score(run, test);
    CHECK(beam.beam_size == 3);
    CHECK(beam.hypotheses.size() == test.size());
    CHECK(beam.references == greedy.references);
}

TEST_CASE("eval on a language model prints its teacher-forced scores only, and decode_and_score refuses one",
          "[integration]") {
    test::TempDir dir;
    REQUIRE(test::run_cli({"train", kShippedConfigs + "char_lm.json", "--set", "train.max_steps=2", "--set",
                           "data.path=" + std::string(TF_SOURCE_DIR) + "/data/poetry/poems.txt", "--run-dir",
                           dir / "lm", "--quiet"}).exit_code == 0);
    const test::CliResult eval = test::run_cli({"eval", "--run", dir / "lm"});
    REQUIRE(eval.exit_code == 0);
    const nlohmann::json metrics = nlohmann::json::parse(eval.out);
    CHECK(metrics.contains("perplexity"));
    for (const char* key : {"decoding", "exact_match", "cer", "chrf", "bleu"}) CHECK_FALSE(metrics.contains(key));
    LoadedRun run = load_run(dir / "lm");
    CHECK_THROWS_AS(decode_and_score(run, run.dataset.test), ValueError);
}
