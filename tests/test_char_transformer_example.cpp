// examples/char_transformer.cpp is the framework's "lm" model written out in one file: from the
// same weights and the same batches it trains to the losses `tapeformer train` logs on
// configs/char_lm.json. The weights are a checkpoint a one-step `tapeformer train` saved, or each
// program's own init from seed 1; the data is data/sample/tiny_poems.txt, fewer lines than a batch
// (32), so in both programs every step's batch is every line (in an order of its own, which changes
// only the order of sums).
#include "catch.h"
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_helpers.h"
#include "source_paths.h"

using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

// configs/char_lm.json on the tiny text, all of it for training, a row of metrics.jsonl a step.
Json char_lm_on_tiny_poems(const std::string& data, int64_t max_steps) {
    Json config = Json::parse(tf::test::read_text(std::string(TF_SOURCE_DIR) + "/configs/char_lm.json"));
    config["data"]["path"] = data;
    config["data"]["train_fraction"] = 1.0;
    config["data"]["valid_fraction"] = 0.0;
    config["train"]["max_steps"] = max_steps;
    config["train"]["log_every"] = 1;
    config["train"]["max_minutes"] = 0;
    return config;
}

const std::string kTinyPoems = std::string(TF_SOURCE_DIR) + "/data/sample/tiny_poems.txt";

// The losses of the example's "step N | loss X | …" lines, in order; each N the next step.
std::vector<double> printed_losses(const std::string& out) {
    std::istringstream lines(out);
    std::vector<double> losses;
    for (std::string line; std::getline(lines, line);) {
        long long step = 0;
        double loss = 0;
        if (std::sscanf(line.c_str(), "step %lld | loss %lf", &step, &loss) != 2) continue;
        REQUIRE(step == static_cast<long long>(losses.size()) + 1);
        losses.push_back(loss);
    }
    return losses;
}

// Both losses of each step, the same count of steps, each pair within 1e-5.
void require_same_losses(const std::vector<std::pair<int64_t, double>>& framework, const std::vector<double>& example) {
    REQUIRE(framework.size() == 20);
    REQUIRE(example.size() == 20);
    for (std::size_t i = 0; i < example.size(); ++i) {
        INFO("step " << i + 1 << ": example " << example[i] << ", tapeformer " << framework[i].second);
        CHECK(framework[i].first == static_cast<int64_t>(i) + 1);
        CHECK(std::abs(example[i] - framework[i].second) <= 1e-5);
    }
    CHECK(example.back() < example.front() - 0.5);   // it learns: equal losses are not two frozen models'
}

}  // namespace

TEST_CASE("examples/char_transformer from tapeformer's weights logs tapeformer train's losses on char_lm within 1e-5 for 20 steps",
          "[integration]") {
    TempDir dir;
    const std::string& data = kTinyPoems;
    tf::test::write_text(dir / "start.json", char_lm_on_tiny_poems(data, 1).dump());
    REQUIRE(run_cli({"train", dir / "start.json", "--run-dir", dir / "start", "--quiet"}).exit_code == 0);
    const std::string weights = dir / "start/checkpoints/step-1.safetensors";

    tf::test::write_text(dir / "framework.json", char_lm_on_tiny_poems(data, 20).dump());
    REQUIRE(run_cli({"train", dir / "framework.json", "--run-dir", dir / "framework", "--init", weights, "--quiet"}).exit_code == 0);
    const auto framework = tf::test::logged_losses(dir / "framework/metrics.jsonl");

    const tf::test::CliResult example = tf::test::run_example("char_transformer", {"--data", data, "--init", weights, "--steps", "20"});
    INFO(example.err);
    REQUIRE(example.exit_code == 0);
    require_same_losses(framework, printed_losses(example.out));
    CHECK(example.out.find("sample: ") != std::string::npos);
}

TEST_CASE("examples/char_transformer's own init with seed 1 draws tapeformer's, the losses of char_lm within 1e-5 for 20 steps",
          "[integration]") {
    TempDir dir;
    tf::test::write_text(dir / "framework.json", char_lm_on_tiny_poems(kTinyPoems, 20).dump());
    REQUIRE(run_cli({"train", dir / "framework.json", "--run-dir", dir / "framework", "--quiet"}).exit_code == 0);
    const tf::test::CliResult example = tf::test::run_example("char_transformer", {"--data", kTinyPoems, "--seed", "1", "--steps", "20"});
    INFO(example.err);
    REQUIRE(example.exit_code == 0);
    require_same_losses(tf::test::logged_losses(dir / "framework/metrics.jsonl"), printed_losses(example.out));
}

TEST_CASE("examples/char_transformer refuses a checkpoint of another model, an unknown option and a missing file with exit 2",
          "[integration]") {
    TempDir dir;
    const std::string& data = kTinyPoems;
    Json config = char_lm_on_tiny_poems(data, 1);
    config["model"]["layers"] = 2;
    tf::test::write_text(dir / "two_layers.json", config.dump());
    REQUIRE(run_cli({"train", dir / "two_layers.json", "--run-dir", dir / "run", "--quiet"}).exit_code == 0);

    const auto other_model = tf::test::run_example("char_transformer", {"--data", data, "--init", dir / "run/checkpoints/step-1.safetensors"});
    CHECK(other_model.exit_code == 2);
    CHECK(other_model.err.find("holds no tensor 'model.blocks.layers.2.") != std::string::npos);
    const auto unknown = tf::test::run_example("char_transformer", {"--steps", "3", "--lr", "1"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("got '--lr'") != std::string::npos);
    const auto missing = tf::test::run_example("char_transformer", {"--data", dir / "absent.txt"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("cannot read the data file") != std::string::npos);
}
