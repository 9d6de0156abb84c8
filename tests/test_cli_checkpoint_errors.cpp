// Bad checkpoints and run directories through the real binary (docs/limits.md, "Checkpoints and run
// directories"): each is refused with exit code 2 and a message naming the file and the key or
// tensor, and a refused command leaves the run directory exactly as it was.
#include "catch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "train/safetensors.h"

using tf::test::CliResult;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Every file under `root` with its bytes: what a refused command must leave as it was.
std::map<std::string, std::string> contents_of_files(const std::string& root) {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(root))
        if (entry.is_regular_file()) files[entry.path().string()] = tf::test::read_text(entry.path().string());
    return files;
}

// Rewrites the checkpoint at `path` after `edit` changed its tensors or metadata.
void rewrite_checkpoint(const std::string& path, const std::function<void(tf::train::Safetensors&)>& edit) {
    tf::train::Safetensors file = tf::train::read_safetensors(path);
    edit(file);
    tf::train::write_safetensors(path, file.tensors, file.metadata);
}

// Runs `args`, requires exit code 2 with each of `expected` in stderr and the run unchanged.
void require_refused_unchanged(const std::string& run, const std::vector<std::string>& args, const std::vector<std::string>& expected) {
    const auto before = contents_of_files(run);
    const CliResult result = run_cli(args);
    INFO("tapeformer " << args[0] << " …, stderr: " << result.err);
    CHECK(result.exit_code == 2);
    for (const std::string& part : expected) CHECK_THAT(result.err, Catch::Contains(part));
    CHECK(contents_of_files(run) == before);
}

std::vector<std::string> resume(const std::string& run, std::vector<std::string> sets = {"train.max_steps=6"}) {
    std::vector<std::string> args = {"train", "--resume", run, "--quiet"};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    return args;
}

}  // namespace

TEST_CASE("metadata save_checkpoint never writes: eval and resume exit 2 naming the file and key, the run untouched",
          "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    const std::string latest = run + "/checkpoints/step-3.safetensors";
    const std::string saved = tf::test::read_text(latest);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"step", "1e30"}, {"step", "nan"},  {"step", "inf"}, {"step", "1e19"}, {"step", "-5"},
        {"step", ""},     {"step", "4.5"},  {"step", " 4"},  {"step", "0x10"}, {"log_steps", "-1"},
        {"best_step", "nan"}, {"elapsed_seconds", "inf"}, {"best_valid_loss", "inf"}, {"best_step", "4"},
    };
    for (const auto& [key, value] : cases) {
        INFO(key << " = \"" << value << "\"");
        tf::test::write_text(latest, saved);
        rewrite_checkpoint(latest, [&, &key = key, &value = value](tf::train::Safetensors& file) { file.metadata[key] = value; });
        const std::vector<std::string> expected = {latest, "metadata '" + key + "'"};
        require_refused_unchanged(run, {"eval", "--run", run, "--weights", "latest"}, expected);
        require_refused_unchanged(run, resume(run), expected);
    }
}

TEST_CASE("a NaN or infinity in a weight or optimizer tensor is refused at load, naming the tensor", "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    const std::string latest = run + "/checkpoints/step-3.safetensors";
    const std::string saved = tf::test::read_text(latest);
    const auto poison = [&](const std::string& prefix, double value) {
        std::string poisoned;
        tf::test::write_text(latest, saved);
        rewrite_checkpoint(latest, [&](tf::train::Safetensors& file) {
            for (auto& [name, tensor] : file.tensors)
                if (poisoned.empty() && name.starts_with(prefix) && tensor.numel() > 1) {
                    std::vector<int64_t> last_row(static_cast<std::size_t>(tensor.dim()), 0);
                    last_row[0] = tensor.size(0) - 1;
                    tensor.set(last_row, value);
                    poisoned = name;
                }
        });
        REQUIRE_FALSE(poisoned.empty());
        return poisoned;
    };
    SECTION("+inf in one weight: eval and --init refuse it") {
        const std::string tensor = poison("model.", INFINITY);
        require_refused_unchanged(run, {"eval", "--run", run, "--weights", "latest"}, {latest, "tensor '" + tensor + "' holds +inf"});
        const CliResult init = run_cli({"train", dir / "config.json", "--run-dir", dir / "other", "--init", latest, "--quiet"});
        INFO("stderr: " << init.err);
        CHECK(init.exit_code == 2);
        CHECK_THAT(init.err, Catch::Contains(latest) && Catch::Contains("tensor '" + tensor + "' holds +inf"));
    }
    SECTION("NaN in an Adam moment: resume refuses it") {
        const std::string tensor = poison("optimizer.", NAN);
        require_refused_unchanged(run, resume(run), {latest, "tensor '" + tensor + "' holds NaN"});
    }
}

TEST_CASE("a resume that changes the model, data or optimizer exits 2 naming the key, budget keys may change",
          "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    const std::string latest = run + "/checkpoints/step-3.safetensors";
    require_refused_unchanged(run, resume(run, {"model.heads=4"}), {latest, "model.heads was 2", "is 4", "Resuming a run"});
    require_refused_unchanged(run, resume(run, {"data.num_symbols=4"}), {"data.num_symbols was 5"});
    require_refused_unchanged(run, resume(run, {"optimizer.lr=0.1"}), {"optimizer.lr was 0.01"});
    require_refused_unchanged(run, resume(run, {"train.max_steps=6", "seed=2"}), {"seed was 1"});
    // threads may change, but within this machine, as for a new run
    require_refused_unchanged(run, resume(run, {"threads=1000"}), {"threads: expected at most", "hardware threads"});
    SECTION("an edited config.resolved.json is refused by eval too") {
        Json config = Json::parse(tf::test::read_text(run + "/config.resolved.json"));
        config["model"]["heads"] = 4;
        tf::test::write_text(run + "/config.resolved.json", config.dump(2));
        require_refused_unchanged(run, {"eval", "--run", run}, {run + "/best.safetensors", "model.heads was 2"});
    }
    SECTION("the budget, logging and decoding keys may change") {
        const CliResult longer = run_cli(resume(run, {"train.max_steps=5", "train.log_every=2", "decode.beam_size=2", "threads=2"}));
        INFO("stderr: " << longer.err);
        CHECK(longer.exit_code == 0);
        CHECK(tf::test::metrics_rows(run + "/metrics.jsonl") == 5);
    }
}

TEST_CASE("train into a run, a changed vocabulary on --resume and a file as --run-dir exit 2 naming the path",
          "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    require_refused_unchanged(run, {"train", dir / "config.json", "--run-dir", run, "--quiet"},
                    {"--run-dir " + run, "already holds a run", "--resume"});
    SECTION("a vocabulary that no longer matches the data") {
        Json vocab = Json::parse(tf::test::read_text(run + "/vocab.json"));
        std::swap(vocab["tokens"][vocab["tokens"].size() - 1], vocab["tokens"][vocab["tokens"].size() - 2]);
        tf::test::write_text(run + "/vocab.json", vocab.dump());
        require_refused_unchanged(run, resume(run), {run + "/vocab.json", "different vocabulary"});
    }
    SECTION("--run-dir and --resume naming a regular file") {
        const std::string file = dir / "config.json";
        for (const auto& args : {std::vector<std::string>{"train", file, "--run-dir", file, "--quiet"}, resume(file)}) {
            const CliResult result = run_cli(args);
            INFO("stderr: " << result.err);
            CHECK(result.exit_code == 2);
            CHECK_THAT(result.err, Catch::Contains(file + ": is a file, not a run directory"));
        }
    }
}

TEST_CASE("a later train removes the temporaries of a save cut by kill -9, never a live process's", "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    const pid_t dead = ::fork();   // a process that has surely exited: reaped below
    REQUIRE(dead >= 0);
    if (dead == 0) ::_exit(0);
    REQUIRE(::waitpid(dead, nullptr, 0) == dead);
    const std::string stale_log = run + "/metrics.jsonl.tmp-" + std::to_string(dead);
    const std::string stale_checkpoint = run + "/checkpoints/step-4.safetensors.tmp-" + std::to_string(dead);
    const std::string live = run + "/checkpoints/latest.tmp-" + std::to_string(::getpid());
    for (const std::string& path : {stale_log, stale_checkpoint, live}) tf::test::write_text(path, "half a file");
    const CliResult resumed = run_cli(resume(run, {"train.max_steps=4"}));
    INFO("stderr: " << resumed.err);
    REQUIRE(resumed.exit_code == 0);
    CHECK_FALSE(fs::exists(stale_log));
    CHECK_FALSE(fs::exists(stale_checkpoint));
    CHECK(fs::exists(live));
}
