// Hostile input through the real binary, as a black-box attack on the CLI found it: each case is
// refused with exit 2 and a message naming the problem, or, for output, stays well-formed. Before
// these fixes they ended in a SIGFPE, a raw nlohmann exception, std::bad_alloc or a wrapped value.
#include "catch.h"
#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "source_paths.h"

using tf::test::CliResult;
using tf::test::require_refused;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

// A 3-step run of `model` on the given lines (text data, char tokenizer unless `data` says
// otherwise), trained through the CLI into dir/<name>; returns the run directory.
std::string train_text_run(const TempDir& dir, const std::string& name, const Json& model, const std::string& lines,
                           const Json& data = Json::object()) {
    tf::test::write_text(dir / (name + ".txt"), lines);
    Json config = {{"name", name},
                   {"threads", 1},
                   {"model", model},
                   {"data", {{"source", "text"}, {"path", dir / (name + ".txt")}, {"split", "lines"}, {"max_length", 12},
                             {"batch_size", 8}}},
                   {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
                   {"train", {{"max_steps", 3}, {"log_every", 1}, {"eval_every", 0}}}};
    config["data"].update(data);
    tf::test::write_text(dir / (name + ".json"), config.dump());
    REQUIRE(run_cli({"train", dir / (name + ".json"), "--run-dir", dir / name, "--quiet"}).exit_code == 0);
    return dir / name;
}

std::string repeated(const std::string& line, int times) {
    std::string text;
    for (int i = 0; i < times; ++i) text += line + "\n";
    return text;
}

// Two lower-case hex digits a byte back to the bytes.
std::string from_hex(const std::string& hex) {
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return bytes;
}

}  // namespace

TEST_CASE("reconstruct --input \"\" on a transformer run is refused as empty, greedy and with a beam", "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    for (const char* beam : {"1", "3"})
        require_refused(run_cli({"reconstruct", "--run", run, "--input", "", "--beam", beam}),
                        {"reconstruct --input: the input is empty"});
}

TEST_CASE("an empty or blank input to a GRU run's reconstruct and to analyze is refused as empty", "[integration]") {
    TempDir dir;
    const Json gru = {{"type", "rnn_seq2seq"}, {"cell", "gru"}, {"embedding_size", 8}, {"hidden_size", 8}};
    const std::string run = train_text_run(dir, "gru", gru, repeated("a cab", 20), {{"tokenizer", "word"}});
    require_refused(run_cli({"reconstruct", "--run", run, "--input", "a", "--input", ""}), {"reconstruct --input: the input is empty"});
    // Blanks are no word at all.
    require_refused(run_cli({"reconstruct", "--run", run, "--input", "   "}), {"the input is empty", "\"word\" tokenizer"});
    for (const char* input : {"", "  "})
        require_refused(run_cli({"analyze", "--run", run, "--input", input, "--out", dir / "analysis"}),
                        {"analyze --input: the input is empty"});
}

TEST_CASE("generate --json on a byte-level BPE run keeps its text UTF-8 and gives the sampled bytes in hex", "[integration]") {
    TempDir dir;
    const Json lm = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16}, {"max_length", 16}};
    const std::string run = train_text_run(dir, "bpe", lm, repeated("é ü ñ", 20), {{"tokenizer", "bpe"}, {"vocab_size", 260}, {"task", "lm"}});
    // At τ = 20 the samples are near-uniform bytes: most seeds draw some that are not UTF-8.
    int with_hex = 0;
    for (const char* seed : {"1", "2", "3", "4"}) {
        const std::vector<std::string> args{"generate", "--run", run, "--prompt", "\xc3", "--temperature", "20", "--seed", seed};
        const CliResult streamed = run_cli(args);
        std::vector<std::string> json_args = args;
        json_args.push_back("--json");
        const CliResult json = run_cli(json_args);
        INFO("seed " << seed << ", stderr: " << json.err);
        REQUIRE(json.exit_code == 0);
        const Json object = Json::parse(json.out);
        CHECK(object["prompt"] == "\xef\xbf\xbd");   // the lone byte typed, as U+FFFD
        CHECK(object["prompt_hex"] == "c3");
        if (!object.contains("text_hex")) continue;
        ++with_hex;
        CHECK(from_hex(object["text_hex"]) + "\n" == streamed.out);   // the exact bytes the stream printed
    }
    CHECK(with_hex > 0);
}

TEST_CASE("analyze's report.md and report.html show a hostile run path and input as text, not markup", "[integration]") {
    TempDir dir;
    const std::string hostile = dir / "<svg onload=alert(1)> *x* | `y`";
    std::filesystem::rename(tf::test::train_tiny_transformer_run(dir), hostile);
    const CliResult analyzed = run_cli({"analyze", "--run", hostile, "--input", "<b>ab</b>", "--out", dir / "analysis", "--probes", "2"});
    INFO("stderr: " << analyzed.err);
    REQUIRE(analyzed.exit_code == 0);
    const std::string markdown = tf::test::read_text(dir / "analysis/report.md"), page = tf::test::read_text(dir / "analysis/report.html");
    for (const char* markup : {"<svg onload", "<b>", "<unk>"}) {
        CHECK(markdown.find(markup) == std::string::npos);
        CHECK(page.find(markup) == std::string::npos);
    }
    CHECK(page.find("<code>y</code>") == std::string::npos);
    CHECK_THAT(markdown, Catch::Contains("&lt;svg onload=alert(1)&gt; &#42;x&#42; &#124; &#96;y&#96;"));
}

TEST_CASE("compare refuses a seed listed twice, naming its JSON path, before training anything", "[integration]") {
    TempDir dir;
    const std::string config = std::string(TF_SOURCE_DIR) + "/tests/data/tiny_comparison.json";
    require_refused(run_cli({"compare", config, "--set", "seeds=[3,1,3]", "--run-dir", dir / "compare", "--quiet"}),
                    {"seeds[2]: seed 3 is already seeds[0]"});
    CHECK_FALSE(std::filesystem::exists(dir / "compare"));
}

TEST_CASE("the --seed option takes a config seed's range in plain digits: -1, 2^63, 2^64, hex and octal are refused", "[integration]") {
    for (const char* seed : {"-1", "9223372036854775808", "18446744073709551616", "0x10", "010", "1e3"})
        require_refused(run_cli({"theorems", "--seed", seed}), {"--seed", "expected an integer in [0, 9223372036854775807]"});
    TempDir dir;
    require_refused(run_cli({"generate", "--run", dir / "no-run", "--seed", "-1"}), {"--seed"});
}

TEST_CASE("reconstruct --beam and analyze --probes stop where the config's decode.beam_size and analysis.probes do", "[integration]") {
    TempDir dir;
    const std::string run = tf::test::train_tiny_transformer_run(dir);
    // CLI11's own words differ by version ("not in range 1 to 64", "[1 - 64]"): the option and both numbers
    require_refused(run_cli({"reconstruct", "--run", run, "--beam", "65"}), {"--beam", "65", "64"});
    CHECK(run_cli({"reconstruct", "--run", run, "--beam", "64", "--count", "1"}).exit_code == 0);
    require_refused(run_cli({"analyze", "--run", run, "--probes", "1000000", "--out", dir / "analysis"}), {"--probes", "1000000", "1000"});
}
