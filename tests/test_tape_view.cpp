// `tapeformer tape`: one training step's tape, listed and drawn. The list is exactly what the tape
// recorded (checked against Tape::dump()), the page has a row per entry, parses, needs no script,
// and a config that fails validation is refused with exit 2.
#include "catch.h"

#include <sstream>

#include "analysis/tape_view.h"
#include "run_helpers.h"
#include "train/run_config.h"
#include "util/files.h"
#include "xml_check.h"
#include "source_paths.h"

using namespace tf;

namespace {

const std::string kCopyTransformer = std::string(TF_SOURCE_DIR) + "/configs/copy_transformer.json";
const std::string kCopyGru = std::string(TF_SOURCE_DIR) + "/configs/copy_gru_attention.json";

// The op of each line of Tape::dump() ("   3  matmul                (2,5,64), … -> …"), without its last (the total).
std::vector<std::string> dumped_ops(const std::string& dump) {
    std::vector<std::string> ops;
    std::istringstream lines(dump);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string index, op;
        words >> index >> op;
        if (op != "entries,") ops.push_back(op);
    }
    return ops;
}

}  // namespace

TEST_CASE("tape on the copy transformer lists exactly the entries its tape recorded, in order, with their layers",
          "[integration]") {
    const RecordedStep step = record_training_step(train::load_run_config(kCopyTransformer, {}), TapeStepSize{});
    const std::vector<std::string> ops = dumped_ops(step.dump);
    REQUIRE(step.nodes.size() == ops.size());
    CHECK(step.dump.find(std::to_string(ops.size()) + " entries,") != std::string::npos);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        INFO("entry " << i);
        CHECK(step.nodes[i].index == i);
        CHECK(step.nodes[i].op == ops[i]);
    }
    CHECK(step.nodes.back().op == "cross_entropy");
    CHECK(step.nodes.back().layer.empty());   // the loss is outside the layers
    bool reads_a_query_weight = false, in_the_first_encoder_layer = false;
    for (const TapeNode& node : step.nodes) {
        for (const std::string& input : node.inputs)
            reads_a_query_weight = reads_a_query_weight || input == "encoder.layers.0.self_attn.q_proj.weight";
        in_the_first_encoder_layer = in_the_first_encoder_layer || node.layer.rfind("encoder.layers.0", 0) == 0;
        for (const std::string& input : node.inputs)
            if (input[0] == '#') CHECK(std::stoul(input.substr(1)) < node.index);   // only earlier entries are read
    }
    CHECK(reads_a_query_weight);
    CHECK(in_the_first_encoder_layer);
}

TEST_CASE("tape records a tiny step: examples cut to max_tokens, a recurrent layer's entries growing by the same count "
          "per token, a transformer's not at all", "[integration]") {
    const std::vector<std::string> long_examples{"data.min_length=10"};   // every copy example 10 tokens
    const auto entries = [&](const std::string& config, int64_t tokens) {
        const RecordedStep step = record_training_step(train::load_run_config(config, long_examples), {2, tokens});
        const Shape& logits = step.nodes.back().input_shapes.at(0);   // cross_entropy's (B, T + 1, V)
        CHECK(logits[0] == 2);
        CHECK(logits[1] == tokens + 1);   // <bos> and the cut target
        return step.nodes.size();
    };
    const std::size_t gru4 = entries(kCopyGru, 4), gru6 = entries(kCopyGru, 6), gru8 = entries(kCopyGru, 8);
    CHECK(gru6 > gru4);
    CHECK(gru8 - gru6 == gru6 - gru4);   // the unrolled cells: the same entries for every extra token
    CHECK(entries(kCopyTransformer, 4) == entries(kCopyTransformer, 8));
}

TEST_CASE("tape.html has one row per entry, parses, works without a script, and stays small", "[integration]") {
    test::TempDir dir;
    const test::CliResult listed = test::run_cli({"tape", kCopyTransformer, "--text"});
    REQUIRE(listed.exit_code == 0);
    const std::size_t entries = std::stoul(listed.out.substr(listed.out.rfind('\n', listed.out.rfind(" entries,")) + 1));
    REQUIRE(test::run_cli({"tape", kCopyTransformer, "--out", dir.path()}).exit_code == 0);
    const std::string html = read_file(dir / "tape.html");
    CHECK(test::xml_problem(html) == "");
    CHECK(test::xml_problem(read_file(dir / "tape.svg")) == "");
    CHECK(test::count_occurrences(html, "<tr class=\"node\"") == entries);
    CHECK(test::count_occurrences(html, "<details class=\"group\">") > 10);   // grouped by layer
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.size() < (2u << 20));
}

TEST_CASE("tape on a config that fails validation exits 2 with the config error", "[integration]") {
    const test::CliResult refused = test::run_cli({"tape", kCopyTransformer, "--set", "model.heads=3"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("heads"));
}
