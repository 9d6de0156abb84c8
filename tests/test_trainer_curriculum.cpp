// A temperature curriculum changes attention while training, not how the model is judged: the
// validation that picks best.safetensors runs at multiplier 1, as eval/reconstruct load the model.
#include "catch.h"
#include <nlohmann/json.hpp>

#include <sstream>

#include "run_helpers.h"
#include "datasets/batching.h"
#include "train/evaluate.h"
#include "train/run_dir.h"
#include "train/run_loader.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

TEST_CASE("validation during a temperature curriculum equals eval of the saved model", "[integration]") {
    TempDir dir;
    const config::Json root = {
        {"name", "curriculum"},
        {"seed", 2},
        {"threads", 1},
        {"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                   {"ffn_hidden", 16}, {"dropout", 0.0}, {"max_length", 16}}},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 5}, {"min_length", 2}, {"max_length", 5},
                  {"train_size", 32}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
        // At step 4 of 100 the multiplier is still far below 1.
        {"train", {{"max_steps", 4}, {"log_every", 1}, {"eval_every", 4}, {"temperature_curriculum", {{"start", 0.25}, {"steps", 100}}}}},
    };
    const RunConfig config = read_run_config(root, "curriculum");
    REQUIRE(config.train.temperature_curriculum.multiplier_at(4) < 0.5);
    const TrainResult result = train::train(config, {.run_dir = dir.path(), .quiet = true});
    REQUIRE(result.steps == 4);

    LoadedRun loaded = load_run(dir.path(), "best");
    const auto batches = evaluation_batches(loaded.dataset.valid, config.data.batch_size, loaded.dataset.is_lm());
    const EvalMetrics saved = evaluate(*loaded.model, batches, config.train.eval_batches);
    CHECK(saved.loss == Approx(result.valid.loss).epsilon(1e-6));
}
