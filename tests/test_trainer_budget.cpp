// The time budget (train.max_minutes) and early stopping (train.patience) end a run like its step
// budget does: the step that ends it is evaluated, logged and saved, and a resume of the ended run
// trains no further.
#include "catch.h"
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "run_helpers.h"
#include "train/checkpoint.h"
#include "train/run_dir.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

namespace {

// A copy-task GRU with the given "train" section ...
config::Json budget_config(const config::Json& train) {
    return {
        {"name", "budget"},
        {"seed", 5},
        {"model", {{"type", "rnn_seq2seq"}, {"cell", "gru"}, {"embedding_size", 8}, {"hidden_size", 8}}},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 5}, {"min_length", 2}, {"max_length", 5},
                  {"train_size", 16}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
        {"train", train},
    };
}

// ... whose budget (60 µs) is spent by its first step, long before max_steps ...
RunConfig run_out_of_time() {
    return read_run_config(budget_config({{"max_steps", 1000}, {"max_minutes", 1e-6}, {"log_every", 100}, {"eval_every", 0}}),
                           "budget");
}

// ... or whose learning rate (10⁻¹²) is far below what moves a float32 weight of its size: its
// validation loss never goes lower after the first evaluation.
RunConfig run_that_cannot_improve(int64_t eval_every, int64_t patience) {
    config::Json root = budget_config({{"max_steps", 1000}, {"log_every", 100}, {"eval_every", eval_every}, {"patience", patience}});
    root["optimizer"]["lr"] = 1e-12;
    return read_run_config(root, "budget");
}

nlohmann::json last_metrics_row(const std::string& metrics_path) {
    std::istringstream lines(test::read_text(metrics_path));
    std::string line, last;
    while (std::getline(lines, line))
        if (!line.empty()) last = line;
    REQUIRE_FALSE(last.empty());
    return nlohmann::json::parse(last);
}

}  // namespace

TEST_CASE("a run stopped by its time budget evaluates logs and saves its last step", "[integration]") {
    TempDir dir("tapeformer-budget");
    const RunConfig config = run_out_of_time();
    const TrainResult result = train::train(config, {.run_dir = dir.path(), .quiet = true});
    REQUIRE(result.steps == 1);
    CHECK(std::isfinite(result.valid.loss));

    const RunDirectory run(dir.path());
    const nlohmann::json row = last_metrics_row(run.metrics());
    CHECK(row["step"] == 1);
    REQUIRE(row.contains("valid_loss"));
    CHECK(row["valid_loss"].get<double>() == result.valid.loss);
    CHECK(std::filesystem::exists(run.best()));
    CHECK(std::filesystem::exists(run.checkpoint(1)));

    // Resumed with the budget spent: no step, nothing new logged.
    const std::string metrics_before = test::read_text(run.metrics());
    CHECK(train::train(config, {.run_dir = dir.path(), .resume = true, .quiet = true}).steps == 1);
    CHECK(test::read_text(run.metrics()) == metrics_before);
}

TEST_CASE("a run stops early once patience evaluations bring no lower validation loss, and stays stopped", "[integration]") {
    TempDir dir("tapeformer-patience");
    // Evaluations at steps 2 (the first: best), 4 and 6 (not lower): step 6 − best step 2 = 2 evaluations of 2 steps.
    const RunConfig config = run_that_cannot_improve(2, 2);
    const TrainResult result = train::train(config, {.run_dir = dir.path(), .quiet = true});
    CHECK(result.steps == 6);

    const RunDirectory run(dir.path());
    const nlohmann::json row = last_metrics_row(run.metrics());
    CHECK(row["step"] == 6);
    CHECK(row.contains("valid_loss"));
    CHECK(std::filesystem::exists(run.checkpoint(6)));
    CHECK(train::read_progress(run.latest()).best_step == 2);

    const std::string metrics_before = test::read_text(run.metrics());
    CHECK(train::train(config, {.run_dir = dir.path(), .resume = true, .quiet = true}).steps == 6);
    CHECK(test::read_text(run.metrics()) == metrics_before);
}

TEST_CASE("train.patience is refused without evaluations to count", "[unit]") {
    config::Json root = budget_config({{"max_steps", 10}, {"eval_every", 0}, {"patience", 3}});
    CHECK_THROWS_WITH(read_run_config(root, "budget"), Catch::Contains("train.eval_every is 0"));
    root = budget_config({{"max_steps", 10}, {"eval_every", 2}, {"patience", 3}});
    root["data"]["valid_size"] = 0;
    TempDir dir("tapeformer-patience-no-valid");
    CHECK_THROWS_WITH(train::train(read_run_config(root, "budget"), {.run_dir = dir.path(), .quiet = true}),
                      Catch::Contains("no validation split"));
}
