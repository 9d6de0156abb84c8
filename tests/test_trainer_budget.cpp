// The time budget (train.max_minutes) ends a run like its step budget does: the step that spends
// it is evaluated, logged and saved, and a resume with the budget spent trains no further.
#include "catch.h"
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "run_helpers.h"
#include "train/run_dir.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

namespace {

// A copy-task GRU whose budget (60 µs) is spent by its first step, long before max_steps.
RunConfig run_out_of_time() {
    const config::Json root = {
        {"name", "budget"},
        {"seed", 5},
        {"model", {{"type", "rnn_seq2seq"}, {"cell", "gru"}, {"embedding_size", 8}, {"hidden_size", 8}}},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 5}, {"min_length", 2}, {"max_length", 5},
                  {"train_size", 16}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
        {"train", {{"max_steps", 1000}, {"max_minutes", 1e-6}, {"log_every", 100}, {"eval_every", 0}}},
    };
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
