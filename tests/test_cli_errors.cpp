// The CLI's promises about bad input, through the real binary: a bad config exits 2 and names the
// JSON path and what was expected; a missing file, a directory that is not a run, or a broken
// checkpoint exits 2 naming the file; a run directory that already holds a run is left untouched;
// decoding an untrained model stops where its positions end instead of failing.
#include "catch.h"
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "source_paths.h"

using tf::test::CliResult;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

// A valid tiny run config; each table row breaks one thing in it.
Json valid_config() {
    return {{"name", "cli"},
            {"seed", 1},
            {"threads", 1},
            {"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                       {"ffn_hidden", 16}, {"dropout", 0.1}, {"max_length", 16}}},
            {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 5}, {"min_length", 2}, {"max_length", 5},
                      {"train_size", 32}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
            {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
            {"train", {{"max_steps", 3}, {"log_every", 1}, {"eval_every", 0}}}};
}

struct BadConfig {
    std::string what;
    std::string text;                    // the config file
    std::vector<std::string> overrides;  // --set arguments
    std::vector<std::string> expected;   // substrings of stderr
};

std::string with(const std::string& pointer, const Json& value) {
    Json config = valid_config();
    config[Json::json_pointer(pointer)] = value;
    return config.dump();
}

std::vector<BadConfig> bad_configs() {
    Json no_heads = valid_config();
    no_heads["model"].erase("heads");
    no_heads["model"]["haeds"] = 2;
    std::string duplicate = valid_config().dump();
    duplicate.replace(duplicate.find("\"seed\":1"), 8, "\"seed\":1,\"seed\":2");
    const std::string valid = valid_config().dump();
    return {
        {"unknown key", no_heads.dump(), {}, {"model.haeds", "unknown key", "did you mean 'heads'"}},
        {"1.5 for an integer", with("/model/heads", 1.5), {}, {"model.heads", "expected an integer", "1.5"}},
        {"-3 for a count", with("/data/batch_size", -3), {}, {"data.batch_size", "expected an integer", "-3"}},
        {"out of range", with("/model/dropout", 1.5), {}, {"model.dropout", "expected a number in [0,", "1.5"}},
        {"duplicate key", duplicate, {}, {"seed", "duplicate key"}},
        {"d_model not divisible by heads", with("/model/d_model", 9), {}, {"model.d_model", "not divisible by heads"}},
        {"missing data file",
         with("/data", Json{{"source", "text"}, {"path", "/nonexistent/corpus.txt"}, {"task", "autoencode"}}),
         {},
         {"data.path", "/nonexistent/corpus.txt", "not found"}},
        {"wrong type", with("/model/norm_first", "yes"), {}, {"model.norm_first", "expected true or false", "\"yes\""}},
        {"unknown model type", with("/model/type", "transformr"), {},
         {"model.type", "\"transformer\", \"lm\", \"rnn_seq2seq\"", "did you mean \"transformer\""}},
        {"a --set into a missing section", valid, {"modle.heads=4"}, {"--set modle.heads", "no section 'modle'"}},
        {"a --set of a misspelt key", valid, {"model.haeds=4"}, {"model.haeds", "did you mean 'heads'"}},
        {"not JSON", "{\"name\": \"cli\",", {}, {"config.json:1:"}},
        {"unknown precision", with("/precision", "fp16"), {}, {"precision", "\"fp32\", \"bf16\"", "\"fp16\""}},
    };
}

void require_stderr_contains(const CliResult& result, const std::vector<std::string>& expected) {
    INFO("stderr: " << result.err);
    CHECK(result.exit_code == 2);
    for (const auto& part : expected) CHECK_THAT(result.err, Catch::Contains(part));
}

// Every file under `root` with its bytes and modification time.
std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>> contents_and_times(const std::string& root) {
    std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        files[entry.path().string()] = {std::string(std::istreambuf_iterator<char>(in), {}), entry.last_write_time()};
    }
    return files;
}

}  // namespace

TEST_CASE("config check: every bad config exits 2 naming the JSON path and what was expected", "[integration]") {
    TempDir dir;
    const std::string path = dir / "config.json";
    tf::test::write_text(path, valid_config().dump());
    REQUIRE(run_cli({"config", "check", path}).exit_code == 0);
    for (const BadConfig& bad : bad_configs()) {
        INFO(bad.what);
        tf::test::write_text(path, bad.text);
        std::vector<std::string> args = {"config", "check", path};
        for (const auto& assignment : bad.overrides) args.insert(args.end(), {"--set", assignment});
        require_stderr_contains(run_cli(args), bad.expected);
    }
}

TEST_CASE("train in bf16 on a CPU without bf16 instructions exits 2 naming them, before writing anything",
          "[integration]") {
    TempDir dir;
    const std::string path = dir / "config.json";
    tf::test::write_text(path, valid_config().dump());
    // oneDNN's ISA cap makes this CPU look like one with AVX-512 but no bf16 (the child inherits it)
    setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE", 1);
    const CliResult refused = run_cli({"train", path, "--set", "precision=bf16", "--run-dir", dir / "run"});
    unsetenv("ONEDNN_MAX_CPU_ISA");
    require_stderr_contains(refused, {"precision", "AVX512-BF16", "\"fp32\""});
    CHECK_FALSE(std::filesystem::exists(dir / "run"));
}

TEST_CASE("train with a missing config file and eval of a directory that is not a run exit 2 naming the path",
          "[integration]") {
    TempDir dir;
    require_stderr_contains(run_cli({"train", dir / "missing.json", "--run-dir", dir / "run"}),
                            {dir / "missing.json", "cannot open"});
    CHECK_FALSE(std::filesystem::exists(dir / "run"));
    require_stderr_contains(run_cli({"eval", "--run", dir.path()}), {dir.path(), "not a run directory"});
}

TEST_CASE("a start that fails before its first checkpoint can be started again in the same directory", "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json", run = dir / "run";
    tf::test::write_text(config, valid_config().dump());
    // A bad --init fails before anything is written.
    require_stderr_contains(run_cli({"train", config, "--run-dir", run, "--init", dir / "missing.safetensors", "--quiet"}),
                            {dir / "missing.safetensors"});
    CHECK_FALSE(std::filesystem::exists(run + "/config.resolved.json"));
    // A run that dies before its first checkpoint (here: a directory with its config and log only).
    std::filesystem::create_directories(run);
    tf::test::write_text(run + "/config.resolved.json", valid_config().dump());
    tf::test::write_text(run + "/metrics.jsonl", "{\"step\":1,\"loss\":2.5}\n");
    const CliResult again = run_cli({"train", config, "--run-dir", run, "--quiet"});
    INFO("stderr: " << again.err);
    CHECK(again.exit_code == 0);
    CHECK(std::filesystem::exists(run + "/checkpoints/step-3.safetensors"));
    CHECK(tf::test::read_text(run + "/metrics.jsonl.failed-start") == "{\"step\":1,\"loss\":2.5}\n");   // the old log is kept
    CHECK(tf::test::metrics_rows(run + "/metrics.jsonl") == 3);
}

TEST_CASE("generate with a prompt that fills the model's positions, a bad top-p or a cache it cannot keep, and analyze --input on a reverse run exit 2 saying why",
          "[integration]") {
    TempDir dir;
    Json lm = valid_config();
    lm["model"] = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16}, {"max_length", 8}};
    std::string lines;
    for (int i = 0; i < 40; ++i) lines += i % 2 ? "a cab\n" : "bad cab\n";
    tf::test::write_text(dir / "lines.txt", lines);
    lm["data"] = {{"source", "text"}, {"path", dir / "lines.txt"}, {"split", "lines"}, {"tokenizer", "char"}, {"task", "lm"},
                  {"max_length", 7}, {"batch_size", 8}};
    Json reverse = valid_config();
    reverse["data"]["task"] = "reverse";
    tf::test::write_text(dir / "lm.json", lm.dump());
    tf::test::write_text(dir / "reverse.json", reverse.dump());
    REQUIRE(run_cli({"train", dir / "lm.json", "--run-dir", dir / "lm", "--quiet"}).exit_code == 0);
    REQUIRE(run_cli({"train", dir / "reverse.json", "--run-dir", dir / "reverse", "--quiet"}).exit_code == 0);
    require_stderr_contains(run_cli({"generate", "--run", dir / "lm", "--prompt", "abcdeabcde"}),
                            {"fills the model's 8 positions", "nothing is left to generate"});
    for (const char* top_p : {"0", "1.5", "-1"})
        require_stderr_contains(run_cli({"generate", "--run", dir / "lm", "--prompt", "a", "--top-p", top_p}), {"top_p must be in (0, 1]"});
    // The same seed samples the same text with the key/value cache and without; --json is one object.
    const CliResult cached = run_cli({"generate", "--run", dir / "lm", "--prompt", "ba", "--cache", "on", "--seed", "3"});
    const CliResult rerun = run_cli({"generate", "--run", dir / "lm", "--prompt", "ba", "--cache", "off", "--seed", "3"});
    const CliResult json = run_cli({"generate", "--run", dir / "lm", "--prompt", "ba", "--seed", "3", "--json"});
    REQUIRE(json.exit_code == 0);
    CHECK(cached.exit_code == 0);
    CHECK(cached.out == rerun.out);
    CHECK(cached.out.starts_with("ba"));
    const Json object = Json::parse(json.out);
    CHECK(object["text"].get<std::string>() + "\n" == cached.out);
    CHECK(object["cache"] == "auto");
    // A block without a key/value cache: re-running the prefix unless the cache is asked for.
    Json conv = lm;
    conv["model"]["block"] = {{"type", "local_conv_mixer"}, {"kernel_size", 3}};
    tf::test::write_text(dir / "conv.json", conv.dump());
    REQUIRE(run_cli({"train", dir / "conv.json", "--run-dir", dir / "conv", "--quiet"}).exit_code == 0);
    CHECK(run_cli({"generate", "--run", dir / "conv", "--prompt", "ba"}).exit_code == 0);
    require_stderr_contains(run_cli({"generate", "--run", dir / "conv", "--prompt", "ba", "--cache", "on"}),
                            {"blocks.layers.0 cannot decode incrementally", "\"auto\""});
    require_stderr_contains(run_cli({"reconstruct", "--run", dir / "reverse", "--beam", "0"}), {"--beam"});
    require_stderr_contains(run_cli({"analyze", "--run", dir / "reverse", "--input", "abc", "--out", dir / "analysis"}),
                            {"task \"reverse\"", "--input works for autoencode, copy and lm runs"});
}

TEST_CASE("a short run: a truncated or corrupt checkpoint exits 2 naming it, a second train leaves the run untouched",
          "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json", run = dir / "run";
    tf::test::write_text(config, valid_config().dump());
    REQUIRE(run_cli({"train", config, "--run-dir", run, "--quiet"}).exit_code == 0);

    SECTION("a second train into the same directory fails and changes nothing") {
        const auto before = contents_and_times(run);
        const CliResult again = run_cli({"train", config, "--run-dir", run, "--quiet"});
        INFO("stderr: " << again.err);
        CHECK(again.exit_code != 0);
        CHECK_THAT(again.err, Catch::Contains("already holds a run") && Catch::Contains("--resume"));
        CHECK(contents_and_times(run) == before);
    }
    SECTION("reconstruct with a model that never says <eos> stops where its positions end") {
        for (const char* beam : {"1", "2"}) {
            const CliResult shown = run_cli({"reconstruct", "--run", run, "--count", "2", "--beam", beam});
            INFO("beam " << beam << ", stdout:\n" << shown.out << "stderr: " << shown.err);
            CHECK(shown.exit_code == 0);
            CHECK_THAT(shown.out, Catch::Contains("of 2 reconstructed exactly"));
            // The premise: some output ran to the model's max_length positions without an <eos>. The
            // copy task's symbols are single letters, so an output line's characters count its tokens.
            const std::size_t positions = valid_config()["model"]["max_length"].get<std::size_t>();
            const std::string prefix = "output: ";
            std::istringstream lines(shown.out);
            bool full_length = false;
            for (std::string line; std::getline(lines, line);)
                full_length = full_length || (line.starts_with(prefix) && line.size() - prefix.size() == positions);
            CHECK(full_length);
        }
    }
    SECTION("a truncated latest checkpoint: eval and resume name it") {
        const std::string checkpoint = run + "/checkpoints/step-3.safetensors";
        std::filesystem::resize_file(checkpoint, std::filesystem::file_size(checkpoint) / 2);
        require_stderr_contains(run_cli({"eval", "--run", run, "--weights", "latest"}), {checkpoint});
        require_stderr_contains(run_cli({"train", "--resume", run, "--set", "train.max_steps=5", "--quiet"}), {checkpoint});
    }
    SECTION("a best checkpoint whose header is garbage: eval names it") {
        tf::test::write_text(run + "/best.safetensors", std::string("\x10\0\0\0\0\0\0\0{not json at all", 24));
        require_stderr_contains(run_cli({"eval", "--run", run}), {run + "/best.safetensors"});
    }
}

TEST_CASE("a model larger than the machine's memory exits 2 naming the tensor, before writing anything", "[integration]") {
    TempDir dir;
    const std::string config = dir / "config.json", run = dir / "run";
    // A learned position table of 2^20 positions × 65,536 features is 256 GiB of f32.
    const Json lm = {{"name", "huge"},
                     {"model", {{"type", "lm"}, {"d_model", 65536}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16},
                                {"max_length", 1 << 20}}},
                     {"data", {{"source", "text"}, {"path", std::string(TF_SOURCE_DIR) + "/data/sample/tiny_poems.txt"},
                               {"split", "lines"}, {"tokenizer", "char"}, {"task", "lm"}, {"batch_size", 2}}},
                     {"optimizer", {{"name", "adam"}, {"lr", 0.001}}},
                     {"train", {{"max_steps", 1}}}};
    tf::test::write_text(config, lm.dump());
    require_stderr_contains(run_cli({"train", config, "--run-dir", run, "--quiet"}),
                            {"tensor of shape (1048576,65536)", "256.00 GiB", "would pass the limit"});
    CHECK_FALSE(std::filesystem::exists(run));
}
