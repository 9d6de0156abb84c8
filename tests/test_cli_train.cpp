// `tapeformer train` as a process: SIGTERM or SIGINT saves a checkpoint and exits 143 or 130, and --resume
// finishes the run as if it had never stopped; NaN weights are refused at load (exit 2); a run an
// absurd learning rate poisons exits 1 naming the step, the last good checkpoint (still loadable)
// and, with --check-numerics, the op.
#include <signal.h>
#include <unistd.h>

#include "catch.h"
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "run_helpers.h"
#include "train/run_dir.h"
#include "train/safetensors.h"

using namespace tf;
using tf::test::CliResult;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

Json tiny_config(int64_t max_steps) {
    return {{"name", "signals"},
            {"seed", 2},
            {"threads", 1},
            {"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                       {"ffn_hidden", 16}, {"max_length", 16}}},
            {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 5}, {"min_length", 2}, {"max_length", 5},
                      {"train_size", 32}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
            {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
            {"train", {{"max_steps", max_steps}, {"log_every", 1}, {"eval_every", 0}, {"checkpoint_every", 0}}}};
}

int64_t checkpoint_step(const std::string& path) {
    return std::stoll(train::read_safetensors(path).metadata.at("step"));
}

void require_signal_saves_and_resume_finishes(int signal_number) {
    constexpr int64_t kMaxSteps = 400, kLogEvery = 7;   // the signal most likely lands inside a log row
    TempDir dir;
    const std::string config = dir / "config.json", run = dir / "run";
    Json settings = tiny_config(kMaxSteps);
    settings["train"]["log_every"] = kLogEvery;
    test::write_text(config, settings.dump());
    const pid_t child = test::start_cli({"train", config, "--run-dir", run, "--quiet"}, dir / "out", dir / "err");
    const train::RunDirectory runs(run);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (test::metrics_rows(runs.metrics()) < 3 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    REQUIRE(kill(child, signal_number) == 0);
    CHECK(test::wait_for_exit(child) == 128 + signal_number);   // a script tells a stopped run from a finished one

    const std::string out = test::read_text(dir / "out");
    INFO("stdout: " << out << "\nstderr: " << test::read_text(dir / "err"));
    REQUIRE_THAT(out, Catch::Contains("stopped by a signal"));
    const int64_t saved_step = checkpoint_step(runs.latest());
    CHECK(saved_step > 0);
    CHECK(saved_step < kMaxSteps);
    CHECK(test::metrics_rows(runs.metrics()) == saved_step / kLogEvery);

    const CliResult resumed = run_cli({"train", "--resume", run, "--quiet"});
    INFO("resume stderr: " << resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK(checkpoint_step(runs.latest()) == kMaxSteps);
    // Cut wherever the signal landed, the run still matches one that was never cut: its parameters,
    // and every logged average (the open row's sum is in the checkpoint).
    REQUIRE(run_cli({"train", config, "--run-dir", dir / "whole", "--quiet"}).exit_code == 0);
    const train::RunDirectory whole(dir / "whole");
    CHECK(test::logged_losses(runs.metrics()) == test::logged_losses(whole.metrics()));
    CHECK(test::tensor_values(runs.latest()) == test::tensor_values(whole.latest()));
}

// The step number in "step N: …" at the start of the error line.
int64_t failed_step(const std::string& err) {
    std::smatch match;
    REQUIRE(std::regex_search(err, match, std::regex("error: step ([0-9]+): ")));
    return std::stoll(match[1]);
}

// A run of plain SGD at lr 10^6 with no clipping: finite for a step or two, then it overflows.
Json exploding_config() {
    Json config = tiny_config(50);
    config["optimizer"] = {{"name", "sgd"}, {"lr", 1e6}};
    config["train"]["checkpoint_every"] = 1;
    return config;
}

}  // namespace

TEST_CASE("SIGTERM during training saves a checkpoint and exits 143, and --resume finishes the run exactly", "[integration]") {
    require_signal_saves_and_resume_finishes(SIGTERM);
}

TEST_CASE("SIGINT during training saves a checkpoint and exits 130, and --resume finishes the run exactly", "[integration]") {
    require_signal_saves_and_resume_finishes(SIGINT);
}

// A NaN in the weights is bad input, refused at load before the run directory is made: training
// from it would stop at step 1 and call the NaN file the last good checkpoint.
TEST_CASE("a run started from weights holding a NaN is refused at load with exit 2 naming the tensor", "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json";
    test::write_text(config, tiny_config(1).dump());
    REQUIRE(run_cli({"train", config, "--run-dir", dir / "clean", "--quiet"}).exit_code == 0);
    // A plain state dict ("<name>" → tensor) from the clean run, with one NaN in one parameter.
    std::map<std::string, Tensor> weights;
    for (auto& [name, tensor] : train::read_safetensors(train::RunDirectory(dir / "clean").latest()).tensors)
        if (name.rfind("model.", 0) == 0) weights.emplace(name.substr(6), tensor);
    REQUIRE(weights.count("encoder.layers.0.self_attn.q_proj.weight"));
    weights.at("encoder.layers.0.self_attn.q_proj.weight").data<float>()[3] = NAN;
    train::write_safetensors(dir / "poisoned.safetensors", weights);

    for (const char* numerics : {"--quiet", "--check-numerics"}) {
        const CliResult refused = run_cli({"train", config, "--run-dir", dir / "a", "--init", dir / "poisoned.safetensors",
                                           numerics, "--quiet"});
        INFO("stderr with " << numerics << ": " << refused.err);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains(dir / "poisoned.safetensors") &&
                                    Catch::Contains("tensor 'encoder.layers.0.self_attn.q_proj.weight' holds NaN at element 3"));
        CHECK_FALSE(std::filesystem::exists(dir / "a"));
    }
}

TEST_CASE("an absurd learning rate stops the run at the step that overflowed, the last good checkpoint loads",
          "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json", run = dir / "run";
    test::write_text(config, exploding_config().dump());
    const CliResult exploded = run_cli({"train", config, "--run-dir", run, "--quiet"});
    INFO("stderr: " << exploded.err);
    CHECK(exploded.exit_code == 1);
    const int64_t step = failed_step(exploded.err);
    REQUIRE(step > 1);
    const std::string last_good = run + "/checkpoints/step-" + std::to_string(step - 1) + ".safetensors";
    CHECK_THAT(exploded.err, Catch::Contains("The last good checkpoint is " + last_good));
    CHECK(checkpoint_step(train::RunDirectory(run).latest()) == step - 1);
    const CliResult eval = run_cli({"eval", "--run", run, "--weights", "latest"});
    INFO("eval stderr: " << eval.err);
    CHECK(eval.exit_code == 0);
    CHECK(Json::parse(eval.out).at("step") == step - 1);

    const CliResult checked = run_cli({"train", config, "--run-dir", dir / "checked", "--check-numerics", "--quiet"});
    INFO("stderr with --check-numerics: " << checked.err);
    CHECK(checked.exit_code == 1);
    CHECK(failed_step(checked.err) == step);
    CHECK_THAT(checked.err, Catch::Contains("op '") && Catch::Contains("The last good checkpoint is"));
}

TEST_CASE("tapeformer --threads N train overrides the config's threads, and config.resolved.json records it", "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json";
    Json settings = tiny_config(1);
    settings["threads"] = 2;
    test::write_text(config, settings.dump());
    REQUIRE(run_cli({"--threads", "1", "train", config, "--run-dir", dir / "one", "--quiet"}).exit_code == 0);
    CHECK(Json::parse(test::read_text(dir / "one/config.resolved.json"))["threads"] == 1);
    // A --set threads= still has the last word; without either, the config's value stands.
    REQUIRE(run_cli({"--threads", "1", "train", config, "--set", "threads=2", "--run-dir", dir / "set", "--quiet"}).exit_code == 0);
    CHECK(Json::parse(test::read_text(dir / "set/config.resolved.json"))["threads"] == 2);
    REQUIRE(run_cli({"train", config, "--run-dir", dir / "config", "--quiet"}).exit_code == 0);
    CHECK(Json::parse(test::read_text(dir / "config/config.resolved.json"))["threads"] == 2);
}
