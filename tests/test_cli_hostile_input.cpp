// Hostile input through the real binary, as a black-box attack on the CLI found it: each case is
// refused with exit 2 and a message naming the problem, or, for output, stays well-formed. Before
// these fixes they ended in a SIGFPE, a raw nlohmann exception, std::bad_alloc or a wrapped value.
#include "catch.h"
#include <nlohmann/json.hpp>

#include "run_helpers.h"

using tf::test::CliResult;
using tf::test::run_cli;
using tf::test::TempDir;
using Json = nlohmann::json;

namespace {

void require_refused(const CliResult& result, const std::vector<std::string>& expected) {
    INFO("stdout: " << result.out << "stderr: " << result.err);
    CHECK(result.exit_code == 2);
    for (const auto& part : expected) CHECK_THAT(result.err, Catch::Contains(part));
}

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
