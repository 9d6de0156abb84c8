// The synthetic task table is the one place a task is defined: a task added as one row — here
// "swap_pairs", which swaps each adjacent pair of symbols — is read from a config (its keys
// checked like every other task's), trains, and has the ideal kernel its row states.
#include "catch.h"

#include <cmath>
#include <set>

#include "analysis/studies/task_kernel.h"
#include "run_helpers.h"
#include "train/run_dir.h"
#include "train/run_loader.h"
#include "datasets/synthetic.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using Json = nlohmann::json;

namespace {

// y = x with positions 2m and 2m + 1 swapped; a last odd symbol stays: abcde → badce.
int64_t swapped_position(int64_t i, int64_t length) { return (i ^ 1) < length ? (i ^ 1) : i; }

// The task's one row, registered on first use (the table outlives every test case).
const SyntheticTask& swap_pairs_task() {
    static const SyntheticTask& task = register_synthetic_task(
        {.name = "swap_pairs",
         .keys = kSymbolSequenceKeys,
         .read_keys = read_symbol_sequence_keys,
         .symbols = [](const SyntheticSettings& s) { return first_symbols(s.num_symbols); },
         .generate =
             [](const SyntheticSettings& s, Rng& rng) {
                 Example example;
                 example.src = draw_symbols(draw_length(s, rng), s.num_symbols, rng);
                 const auto length = static_cast<int64_t>(example.src.size());
                 for (int64_t i = 0; i < length; ++i)
                     example.tgt.push_back(example.src[static_cast<std::size_t>(swapped_position(i, length))]);
                 return example;
             },
         .ideal_kernel =
             [](const Example& example) {
                 return one_position_per_output(static_cast<int64_t>(example.tgt.size()),
                                                static_cast<int64_t>(example.src.size()), swapped_position);
             }});
    return task;
}

Json swap_pairs_config() {
    Json config = test::tiny_transformer_config(4);
    config["data"]["task"] = swap_pairs_task().name;
    return config;
}

DataConfig read_data(const Json& data) {
    config::JsonReader reader(data, "data");
    return DataConfig::from_json(reader);
}

}  // namespace

TEST_CASE("a synthetic task added as one row trains, and its ideal kernel is the row's", "[integration]") {
    const test::TempDir dir("tapeformer-task-table");
    const RunConfig config = read_run_config(swap_pairs_config(), "swap_pairs");
    REQUIRE(config.data.task.synthetic == &swap_pairs_task());
    train::train(config, {.run_dir = dir.path(), .quiet = true});

    const std::vector<std::pair<int64_t, double>> losses = test::logged_losses(RunDirectory(dir.path()).metrics());
    REQUIRE(losses.size() == 4);
    for (const auto& [step, loss] : losses) CHECK(std::isfinite(loss));

    // The saved run names the task and loads it back through the table.
    const LoadedRun run = load_run(dir.path());
    CHECK(run.dataset.task.name() == "swap_pairs");
    REQUIRE_FALSE(run.dataset.test.empty());
    for (const Example& example : run.dataset.test) {
        REQUIRE(example.tgt.size() == example.src.size());
        for (std::size_t i = 0; i + 1 < example.src.size(); i += 2) {
            CHECK(example.tgt[i] == example.src[i + 1]);
            CHECK(example.tgt[i + 1] == example.src[i]);
        }
    }

    // src = a b c d e, tgt = b a d c e: output i needs input i ^ 1, the odd last one itself, <eos> none.
    const std::optional<Matrix> ideal = ideal_kernel(run.dataset.task, {{4, 5, 6, 7, 8}, {5, 4, 7, 6, 8}});
    REQUIRE(ideal.has_value());
    CHECK(*ideal == Matrix{{0, 1, 0, 0, 0}, {1, 0, 0, 0, 0}, {0, 0, 0, 1, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 0, 0}});
    const Example& first = run.dataset.test.front();
    CHECK(ideal_kernel(run.dataset.task, first)->size() == first.tgt.size() + 1);
}

TEST_CASE("a row's keys are checked like a built-in task's", "[unit]") {
    const Json data = swap_pairs_config()["data"];
    CHECK(read_data(data).num_symbols == 5);
    Json with_keys = data;
    with_keys["keys"] = 3;   // recall's key
    CHECK_THROWS_WITH(read_data(with_keys), "data.keys: not used by data.task \"swap_pairs\"");
    Json misspelt = data;
    misspelt["task"] = "swap_pair";
    CHECK_THROWS_WITH(read_data(misspelt), Catch::Contains("data.task") && Catch::Contains("did you mean \"swap_pairs\""));
    Json unknown = data;
    unknown["gap"] = 2;
    CHECK_THROWS_WITH(read_data(unknown), Catch::StartsWith("data.gap: unknown key"));
    Json too_many = data;
    too_many["num_symbols"] = 63;
    CHECK_THROWS_WITH(read_data(too_many), Catch::StartsWith("data.num_symbols: expected an integer in [2, 62]"));
}

TEST_CASE("every row's keys are the keys its reader reads, which a config of it resolves", "[unit]") {
    swap_pairs_task();
    for (const SyntheticTask& task : synthetic_tasks()) {
        INFO(task.name);
        const Json data{{"source", "synthetic"}, {"task", task.name}};
        Json resolved;
        config::JsonReader reader(data, "data", &resolved);
        DataConfig::from_json(reader);
        std::set<std::string> expected{"source", "task", "min_length", "max_length", "train_size", "valid_size",
                                       "test_size", "seed", "batch_size", "bucket", "bucket_batches"};
        expected.insert(task.keys.begin(), task.keys.end());
        std::set<std::string> read;
        for (const auto& [key, value] : resolved.items()) read.insert(key);
        CHECK(read == expected);
    }
}

TEST_CASE("a task name is registered once, and a row needs its functions", "[unit]") {
    swap_pairs_task();
    SyntheticTask again = swap_pairs_task();
    CHECK_THROWS_AS(register_synthetic_task(again), ValueError);
    again.name = "swap_pairs_without_generator";
    again.generate = nullptr;
    CHECK_THROWS_AS(register_synthetic_task(again), ValueError);
    CHECK_THROWS_AS(synthetic_task("swap_pairs_without_generator"), ValueError);
}
