// Nothing a user saved is lost: one writer at a time in a run (a second train or resume exits 2
// naming the first's pid, and the run is what the first makes alone; a killed writer's lock is
// taken over), a new run never goes over a folder of the user's files, every write is checked (a
// sweep of file-size limits across a whole train never leaves a finished run with a short file),
// a FIFO in a file's place is refused instead of waited on, and a stop by signal is not exit 0.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catch.h"
#include <filesystem>
#include <vector>
#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "train/run_dir.h"
#include "source_paths.h"

using namespace tf;
using tf::test::CliResult;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The tiny transformer, evaluating every 50 steps and saving every 25.
std::string write_config(const TempDir& dir, int64_t max_steps) {
    Json config = test::tiny_transformer_config(max_steps);
    config["train"]["eval_every"] = 50, config["train"]["checkpoint_every"] = 25;
    const std::string path = dir / "config.json";
    test::write_text(path, config.dump());
    return path;
}

// Waits (up to 30 s) until the writer's run has logged `rows` steps.
void wait_for_rows(pid_t writer, const std::string& err_path, const train::RunDirectory& run, int64_t rows) {
    test::wait_while_child_runs(writer, err_path, [&] { return test::metrics_rows(run.metrics()) >= rows; }, 30);
}

std::vector<std::string> entries(const std::string& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST_CASE("a second train or resume of a run being trained exits 2 naming the writer, and the run is the writer's alone",
          "[integration]") {
    // The writer trains until a signal stops it, so it is still running however fast this machine is.
    TempDir dir;
    const std::string config = write_config(dir, 1000000), run = dir / "run";
    const pid_t writer = test::start_cli({"train", config, "--run-dir", run, "--quiet"}, dir / "out", dir / "err");
    wait_for_rows(writer, dir / "err", train::RunDirectory(run), 2);
    const CliResult second = run_cli({"train", config, "--run-dir", run, "--quiet"});
    const CliResult resume = run_cli({"train", "--resume", run, "--quiet"});
    REQUIRE(kill(writer, SIGTERM) == 0);
    REQUIRE(test::wait_for_exit(writer) == 128 + SIGTERM);
    for (const CliResult& refused : {second, resume}) {
        INFO("stderr: " << refused.err);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains("in use") && Catch::Contains("pid " + std::to_string(writer)));
    }
    // The same run trained to the writer's last step with nobody beside it: the same log and weights.
    const train::RunDirectory shared(run);
    const int64_t steps = test::logged_losses(shared.metrics()).back().first;
    REQUIRE(run_cli({"train", write_config(dir, steps), "--run-dir", dir / "alone", "--quiet"}).exit_code == 0);
    const train::RunDirectory alone(dir / "alone");
    CHECK(test::logged_losses(shared.metrics()) == test::logged_losses(alone.metrics()));
    CHECK(test::tensor_values(shared.latest()) == test::tensor_values(alone.latest()));
    CHECK_FALSE(fs::exists(shared.metrics() + ".failed-start"));
}

TEST_CASE("a lock left by a killed train is taken over by the next writer", "[integration]") {
    TempDir dir;
    const std::string config = write_config(dir, 5000), run = dir / "run";
    const pid_t killed = test::start_cli({"train", config, "--run-dir", run, "--quiet"}, dir / "out", dir / "err");
    const train::RunDirectory runs(run);
    test::wait_while_child_runs(killed, dir / "err", [&] { return !runs.latest().empty(); }, 60);
    REQUIRE(kill(killed, SIGKILL) == 0);
    REQUIRE(test::wait_for_exit(killed) == 128 + SIGKILL);
    REQUIRE(fs::exists(run + "/lock"));
    const CliResult resumed = run_cli({"train", "--resume", run, "--set", "train.max_steps=60", "--quiet"});
    INFO("stderr: " << resumed.err);
    CHECK(resumed.exit_code == 0);
}

TEST_CASE("a new run into a folder of the user's files is refused and the folder is left as it was", "[integration]") {
    TempDir dir;
    const std::string config = write_config(dir, 3), folder = dir / "mine";
    fs::create_directory(folder);
    test::write_text(folder + "/vocab.json", "my own notes");
    const CliResult refused = run_cli({"train", config, "--run-dir", folder, "--quiet"});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("vocab.json") && Catch::Contains("no run"));
    CHECK(entries(folder) == std::vector<std::string>{"vocab.json"});
    CHECK(test::read_text(folder + "/vocab.json") == "my own notes");
    // An empty folder is a new run's place.
    fs::create_directory(dir / "empty");
    CHECK(run_cli({"train", config, "--run-dir", dir / "empty", "--quiet"}).exit_code == 0);
}

TEST_CASE("a comparison into a folder of the user's files is refused and the folder is left as it was", "[integration]") {
    TempDir dir;
    const std::string folder = dir / "mine";
    fs::create_directory(folder);
    test::write_text(folder + "/report.md", "my own report");
    const CliResult refused =
        run_cli({"compare", std::string(TF_SOURCE_DIR) + "/tests/data/tiny_comparison.json", "--run-dir", folder, "--quiet"});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("report.md") && Catch::Contains("no comparison"));
    CHECK(entries(folder) == std::vector<std::string>{"report.md"});
}

TEST_CASE("a file where the run's folder should be is exit 2 naming the path", "[integration]") {
    TempDir dir;
    const std::string config = write_config(dir, 3);
    test::write_text(dir / "file", "");
    const CliResult refused = run_cli({"train", config, "--run-dir", dir / "file/run", "--quiet"});
    INFO("stderr: " << refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains(dir / "file"));
}

TEST_CASE("a sweep of file-size limits across a whole train: exit 0 with every file whole, or exit 2 naming a file",
          "[integration]") {
    TempDir dir;
    const std::string config = write_config(dir, 30);
    // From below the config's size to above the largest checkpoint's (about 20 KB with Adam's moments).
    std::vector<long> limits{0L, 64L, 300L, 1000L, 2000L, 4000L, 8000L, 16000L, 32000L, 1000000L};
#if defined(__clang__)
    // clang's builds (the sanitizer build) use LLVM's OpenMP runtime, which sizes a 1 KiB shared-memory
    // file as it starts and aborts when it cannot: below that no program of theirs starts, ours or not.
    std::erase_if(limits, [](long limit) { return limit < 1024; });
#endif
    for (const long limit : limits) {
        const std::string run = dir / ("run-" + std::to_string(limit));
        const CliResult result = run_cli({"train", config, "--run-dir", run, "--quiet"}, limit);
        INFO("limit " << limit << " bytes; exit " << result.exit_code << "; stderr: " << result.err);
        REQUIRE((result.exit_code == 0 || result.exit_code == 2));
        if (result.exit_code == 2) {
            // Below a few hundred bytes the message itself cannot be written out whole.
            if (limit >= 1000) CHECK_THAT(result.err, Catch::Contains(run) && Catch::Contains("File too large"));
            continue;
        }
        const train::RunDirectory finished(run);
        for (const std::string& file : {finished.config(), finished.vocab(), finished.metrics(), finished.latest(), finished.best()}) {
            INFO(file);
            CHECK(fs::file_size(file) > 0);
        }
        const CliResult eval = run_cli({"eval", "--run", run});
        INFO("eval: " << eval.err);
        CHECK(eval.exit_code == 0);
    }
}

TEST_CASE("a FIFO in place of a checkpoint or metrics.jsonl is refused at once, not waited on", "[integration]") {
    TempDir dir;
    const std::string run = test::train_tiny_transformer_run(dir);
    const train::RunDirectory runs(run);
    SECTION("the checkpoint") {
        const std::string checkpoint = runs.latest();
        fs::remove(checkpoint);
        fs::remove(runs.best());
        REQUIRE(mkfifo(checkpoint.c_str(), 0644) == 0);
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{"eval", "--run", run}, std::vector<std::string>{"train", "--resume", run, "--quiet"}}) {
            const CliResult refused = run_cli(args);
            INFO(args[0] << ": " << refused.err);
            CHECK(refused.exit_code == 2);
            CHECK_THAT(refused.err, Catch::Contains("not a regular file"));
        }
    }
    SECTION("metrics.jsonl") {
        fs::remove(runs.metrics());
        REQUIRE(mkfifo(runs.metrics().c_str(), 0644) == 0);
        const CliResult refused = run_cli({"train", "--resume", run, "--set", "train.max_steps=5", "--quiet"});
        INFO(refused.err);
        CHECK(refused.exit_code == 2);
        CHECK_THAT(refused.err, Catch::Contains("metrics.jsonl") && Catch::Contains("not a regular file"));
    }
}

TEST_CASE("a run directory copied elsewhere generates and exports without its data, and eval names the data file",
          "[integration]") {
    TempDir dir;
    test::write_text(dir / "lines.txt", "abcab\nbcabc\ncabca\nababc\nbcbca\nacbac\nbbcaa\ncabab\nabcba\nccaab\n");
    const Json lm = {{"name", "copied"}, {"seed", 1}, {"threads", 1},
                     {"model", {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16}, {"max_length", 16}}},
                     {"data", {{"source", "text"}, {"path", dir / "lines.txt"}, {"split", "lines"}, {"task", "lm"},
                               {"batch_size", 2}}},
                     {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
                     {"train", {{"max_steps", 3}, {"log_every", 1}, {"eval_every", 0}}}};
    test::write_text(dir / "lm.json", lm.dump());
    REQUIRE(run_cli({"train", dir / "lm.json", "--run-dir", dir / "lm", "--quiet"}).exit_code == 0);
    fs::rename(dir / "lines.txt", dir / "moved.txt");
    fs::rename(dir / "lm", dir / "copy");
    CHECK(run_cli({"generate", "--run", dir / "copy", "--prompt", "ab", "--max-length", "4"}).exit_code == 0);
    CHECK(run_cli({"theorems", "--run", dir / "copy"}).exit_code == 0);
    CHECK(run_cli({"export", "--run", dir / "copy", "--to", "pytorch", dir / "exported"}).exit_code == 0);
    const CliResult eval = run_cli({"eval", "--run", dir / "copy"});
    INFO("eval: " << eval.err);
    CHECK(eval.exit_code == 2);
    CHECK_THAT(eval.err, Catch::Contains(dir / "lines.txt") && Catch::Contains("--data"));
    CHECK(run_cli({"eval", "--run", dir / "copy", "--data", dir / "moved.txt"}).exit_code == 0);
}

TEST_CASE("train --init refuses weights trained as another model or over another vocabulary of the same size", "[integration]") {
    TempDir dir;
    const std::string run = test::train_tiny_transformer_run(dir);
    Json four_heads = Json::parse(test::read_text(dir / "config.json"));
    four_heads["model"]["heads"] = 4;
    test::write_text(dir / "four.json", four_heads.dump());
    const CliResult heads = run_cli({"train", dir / "four.json", "--run-dir", dir / "four", "--init", run + "/best.safetensors", "--quiet"});
    INFO("heads: " << heads.err);
    CHECK(heads.exit_code == 2);
    CHECK_THAT(heads.err, Catch::Contains("model.heads was 2"));

    // Two character vocabularies of the same size, over different letters.
    const auto lm_on = [&](const std::string& name, const std::string& text) {
        test::write_text(dir / (name + ".txt"), text);
        const Json lm = {{"name", name}, {"seed", 1}, {"threads", 1},
                         {"model", {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16}, {"max_length", 16}}},
                         {"data", {{"source", "text"}, {"path", dir / (name + ".txt")}, {"split", "lines"}, {"task", "lm"}, {"batch_size", 2}}},
                         {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
                         {"train", {{"max_steps", 2}, {"log_every", 1}, {"eval_every", 0}}}};
        test::write_text(dir / (name + ".json"), lm.dump());
        return dir / (name + ".json");
    };
    const std::string abc = lm_on("abc", "abcab\nbcabc\ncabca\nababc\nbcbca\nacbac\nbbcaa\ncabab\nabcba\nccaab\n");
    const std::string xyz = lm_on("xyz", "xyzxy\nyzxyz\nzxyzx\nxyxyz\nyzyzx\nxzyxz\nyyzxx\nzxyxy\nxyzyx\nzzxxy\n");
    REQUIRE(run_cli({"train", abc, "--run-dir", dir / "abc", "--quiet"}).exit_code == 0);
    const CliResult vocabulary = run_cli({"train", xyz, "--run-dir", dir / "xyz", "--init", dir / "abc/best.safetensors", "--quiet"});
    INFO("vocabulary: " << vocabulary.err);
    CHECK(vocabulary.exit_code == 2);
    CHECK_THAT(vocabulary.err, Catch::Contains("another vocabulary"));
    CHECK(run_cli({"train", abc, "--run-dir", dir / "again", "--init", dir / "abc/best.safetensors", "--quiet"}).exit_code == 0);
}

TEST_CASE("export refuses to overwrite without --force, the run directory itself, and a symbolic link", "[integration]") {
    TempDir dir;
    const std::string run = test::train_tiny_transformer_run(dir);
    const auto export_to = [&](const std::string& out, bool force) {
        std::vector<std::string> args{"export", "--run", run, "--to", "pytorch", out};
        if (force) args.push_back("--force");
        return run_cli(args);
    };
    REQUIRE(export_to(dir / "out", false).exit_code == 0);
    test::write_text(dir / "out/model.py", "# my edits");
    const CliResult again = export_to(dir / "out", false);
    INFO("again: " << again.err);
    CHECK(again.exit_code == 2);
    CHECK_THAT(again.err, Catch::Contains("exists") && Catch::Contains("--force"));
    CHECK(test::read_text(dir / "out/model.py") == "# my edits");
    CHECK(export_to(dir / "out", true).exit_code == 0);
    CHECK(test::read_text(dir / "out/model.py") != "# my edits");

    const CliResult into_run = export_to(run, true);
    CHECK(into_run.exit_code == 2);
    CHECK_THAT(into_run.err, Catch::Contains("is the run directory"));
    fs::create_directory(dir / "elsewhere");
    fs::create_directory_symlink(dir / "elsewhere", dir / "link");
    const CliResult through_link = export_to(dir / "link", true);
    CHECK(through_link.exit_code == 2);
    CHECK_THAT(through_link.err, Catch::Contains("symbolic link"));
    CHECK(entries(dir / "elsewhere").empty());
}
