// Bad input through the real binary, as the black-box fuzz of the CLI found it: each case exits 2
// with a message naming the file and the key or line, and a refused `train` leaves no run
// directory behind (before these fixes some exited 1 from deep inside, or half-made a run).
#include "catch.h"
#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "datasets/dataset.h"
#include "train/run_config.h"

using tf::test::CliResult;
using tf::test::require_refused;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

// A tiny run on a text corpus written beside it; each test breaks one thing in it.
Json text_run(const TempDir& dir) {
    std::string lines;
    for (int i = 0; i < 40; ++i) lines += i % 2 ? "a cab\n" : "bad cab\n";
    tf::test::write_text(dir / "lines.txt", lines);
    return {{"name", "inputs"},
            {"threads", 1},
            {"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                       {"ffn_hidden", 16}, {"max_length", 16}}},
            {"data", {{"source", "text"}, {"path", dir / "lines.txt"}, {"max_length", 12}, {"batch_size", 8}}},
            {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
            {"train", {{"max_steps", 2}, {"log_every", 1}, {"eval_every", 0}}}};
}

// Writes `config` to DIR/config.json and runs `tapeformer VERB… DIR/config.json ARGS…`.
CliResult run_with(const TempDir& dir, const Json& config, std::vector<std::string> verb,
                   const std::vector<std::string>& args = {}) {
    tf::test::write_text(dir / "config.json", config.dump());
    verb.push_back(dir / "config.json");
    verb.insert(verb.end(), args.begin(), args.end());
    return run_cli(verb);
}

// `train` into DIR/run is refused as `expected` says, and leaves no run directory.
void require_train_refused(const TempDir& dir, const Json& config, const std::vector<std::string>& expected) {
    require_refused(run_with(dir, config, {"train"}, {"--run-dir", dir / "run", "--quiet"}), expected);
    CHECK_FALSE(std::filesystem::exists(dir / "run"));
}

}  // namespace

TEST_CASE("data.path must name a regular file of at most 32 MiB with a path the system can take", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    const std::string big = dir / "big.txt";
    tf::test::write_text(big, "");
    std::filesystem::resize_file(big, tf::train::kMaxDataBytes + 1);
    const std::vector<std::pair<std::string, std::string>> cases{
        {dir.path(), "is a directory, not a file"},
        {"/dev/null", "is not a regular file"},
        {std::string(5000, 'x'), "the path is 5000 characters"},
        {big, "33554433 bytes, above the limit of 33554432"},
    };
    for (const auto& [path, problem] : cases) {
        INFO(path.substr(0, 100));
        config["data"]["path"] = path;
        require_refused(run_with(dir, config, {"config", "check"}), {"data.path", problem});
    }
}

TEST_CASE("a text corpus that is not UTF-8 is refused naming its line and byte before a run is made", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    tf::test::write_text(dir / "latin1.txt", "caf\xc3\xa9 ok\ncaf\xe9 au lait\n");
    config["data"]["path"] = dir / "latin1.txt";
    for (const char* tokenizer : {"char", "word"}) {
        INFO(tokenizer);
        config["data"]["tokenizer"] = tokenizer;
        require_train_refused(dir, config, {dir / "latin1.txt:2: not UTF-8 at byte offset 3 of the line (offset 12 in the file)"});
    }
}

TEST_CASE("a run name must be one plain path component", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    const std::vector<std::string> names{"..", ".", "", "a/b", "/tmp/abs", std::string("a\0b", 3), std::string(129, 'n')};
    for (const std::string& name : names) {
        INFO(name);
        config["name"] = name;
        require_refused(run_with(dir, config, {"config", "check"}), {"name: expected one plain path component"});
    }
    config["name"] = "..";
    require_train_refused(dir, config, {"name:", "\"..\" is not a directory of its own"});
}

TEST_CASE("a seed above 2^63 - 1 is refused, not clamped", "[integration]") {
    TempDir dir;
    tf::test::write_text(dir / "config.json", "{\"seed\": 9223372036854775808," + text_run(dir).dump().substr(1));
    require_refused(run_cli({"config", "check", dir / "config.json"}), {"seed: expected an integer", "at most 2^63"});
}

TEST_CASE("model.max_length below the data's longest example fails config check, and train before it writes anything",
          "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    config["model"]["max_length"] = 7;  // "bad cab" is 7 characters: with <bos>, 8 positions
    const std::vector<std::string> expected{"model.max_length: 7 positions", "needs: 8", "7 tokens + <bos>", "lines.txt"};
    require_refused(run_with(dir, config, {"config", "check"}), expected);
    require_train_refused(dir, config, expected);
}

TEST_CASE("threads above 4 x the hardware threads is refused naming the key", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    config["threads"] = tf::train::max_threads() + 1;
    require_refused(run_with(dir, config, {"config", "check"}), {"threads: expected", std::to_string(tf::train::max_threads() + 1)});
}

TEST_CASE("decode.max_length above a transformer's positions is refused naming both keys", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    config["decode"] = {{"max_length", 17}};
    require_refused(run_with(dir, config, {"config", "check"}), {"decode.max_length: 17", "model.max_length (16 positions"});
    config["decode"] = {{"max_length", 16}};
    CHECK(run_with(dir, config, {"config", "check"}).exit_code == 0);
}

TEST_CASE("eval of a split with no examples exits 2 naming the split", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    config["data"]["train_fraction"] = 1;
    config["data"]["valid_fraction"] = 0;
    REQUIRE(run_with(dir, config, {"train"}, {"--run-dir", dir / "run", "--quiet"}).exit_code == 0);
    require_refused(run_cli({"eval", "--run", dir / "run", "--split", "valid"}), {"eval --split valid", "no examples"});
    CHECK(run_cli({"eval", "--run", dir / "run", "--split", "train"}).exit_code == 0);
}

TEST_CASE("1e999 in a config, in --set and in JSONL data exits 2 naming where", "[integration]") {
    TempDir dir;
    Json config = text_run(dir);
    tf::test::write_text(dir / "config.json", config.dump().insert(1, "\"seed\": 1e999,"));
    require_refused(run_cli({"config", "check", dir / "config.json"}), {dir / "config.json", "1e999", "beyond the range of a double"});
    require_refused(run_with(dir, config, {"config", "check"}, {"--set", "optimizer.lr=1e999"}),
                    {"--set optimizer.lr", "1e999", "beyond the range of a double"});
    tf::test::write_text(dir / "ids.jsonl", "{\"src\": [4, 5], \"tgt\": [4]}\n{\"src\": [1e999], \"tgt\": [4]}\n");
    config["data"] = {{"source", "jsonl"}, {"path", dir / "ids.jsonl"}, {"vocab_size", 10}};
    require_train_refused(dir, config, {dir / "ids.jsonl:2:", "1e999", "beyond the range of a double"});
}
