// `tapeformer tape`: one training step's tape, listed and drawn. The list is exactly what the tape
// recorded (checked against Tape::dump()), the page has a row per entry, parses, needs no script,
// and a config that fails validation is refused with exit 2.
#include "catch.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/reports/tape_view.h"
#include "autograd/op_formulas.h"
#include "autograd/ops.h"
#include "config/json_file.h"
#include "markdown_anchor.h"
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

namespace {

// The entries of `tapeformer tape CONFIG --text [extra]`: the op of every "#k  op  …" line.
std::vector<std::string> listed_ops(const std::vector<std::string>& args) {
    const test::CliResult listed = test::run_cli(args);
    REQUIRE(listed.exit_code == 0);
    std::vector<std::string> ops;
    std::istringstream lines(listed.out);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("#")) {
            std::istringstream words(line);
            std::string index, op;
            words >> index >> op;
            ops.push_back(op);
        }
    return ops;
}

std::size_t count_of(const std::vector<std::string>& ops, const std::string& op) {
    return static_cast<std::size_t>(std::count(ops.begin(), ops.end(), op));
}

// The tiny language model --values is for: width 8, two heads, one block, one example of 4 tokens.
train::RunConfig tiny_lm() {
    return train::load_run_config(std::string(TF_SOURCE_DIR) + "/configs/char_lm.json",
                                  {"model.d_model=8", "model.heads=2", "model.layers=1", "model.ffn_hidden=8",
                                   "data.path=" + std::string(TF_SOURCE_DIR) + "/data/poetry/poems.txt"});
}

}  // namespace

TEST_CASE("tape shows attention as its chain of ops by default, and the fused entries with --fast", "[integration]") {
    const std::vector<std::string> readable = listed_ops({"tape", kCopyTransformer, "--text"});
    const std::vector<std::string> fast = listed_ops({"tape", kCopyTransformer, "--text", "--fast"});
    // Two encoder and two decoder layers: 2 + 2 self-attentions and 2 cross-attentions, each
    // QKᵀ → ·1/τ → mask → softmax → ·V on the readable path, one fused entry on the fast one.
    CHECK(count_of(readable, "softmax") == 6);
    CHECK(count_of(readable, "masked_fill") == 6);
    CHECK(count_of(readable, "tiled_self_attention") + count_of(readable, "tiled_cross_attention") == 0);
    CHECK(count_of(readable, "linear") == 0);   // matmul + add (+ relu) instead
    CHECK(count_of(fast, "softmax") == 0);
    CHECK(count_of(fast, "tiled_self_attention") == 4);
    CHECK(count_of(fast, "tiled_cross_attention") == 2);
    CHECK(readable.size() > fast.size());
    CHECK(listed_ops({"tape", kCopyTransformer, "--text", "--reference"}) == readable);
    // docs/design.md quotes both counts.
    const std::string design = read_file(std::string(TF_SOURCE_DIR) + "/docs/design.md");
    std::smatch quoted;
    REQUIRE(std::regex_search(design, quoted, std::regex(R"(transformer's step is (\d+) entries at any length\s+\((\d+) with `--fast`\))")));
    CHECK(std::stoul(quoted[1].str()) == readable.size());
    CHECK(std::stoul(quoted[2].str()) == fast.size());
    const test::CliResult both = test::run_cli({"tape", kCopyTransformer, "--fast", "--reference"});
    CHECK(both.exit_code == 2);
}

TEST_CASE("every op a shipped model records has a backward formula whose docs/math section exists", "[integration]") {
    std::set<std::string> recorded(kOpNames.begin(), kOpNames.end());
    for (const auto& entry : std::filesystem::directory_iterator(std::string(TF_SOURCE_DIR) + "/configs")) {
        const std::string name = entry.path().filename().string();
        if (entry.path().extension() != ".json" || name.starts_with("compare_")) continue;
        for (const kernels::KernelPath path : {kernels::KernelPath::fast, kernels::KernelPath::reference}) {
            // A data file is named from the repository's root; the tests run in the build folder.
            const config::Json json = config::load_json_file(entry.path().string());
            std::vector<std::string> from_root;
            if (json["data"].contains("path"))
                from_root.push_back("data.path=" + std::string(TF_SOURCE_DIR) + "/" + json["data"]["path"].get<std::string>());
            train::RunConfig config = train::load_run_config(entry.path().string(), from_root);
            config.kernels = path;
            for (const TapeNode& node : record_training_step(config, {1, 4}).nodes) recorded.insert(node.op);
        }
    }
    for (const std::string& op : recorded) {
        INFO(op);
        CHECK(find_op_formula(op) != nullptr);
    }
    for (const OpFormula& formula : op_formulas()) {
        INFO(formula.op << ": " << formula.math);
        const std::string math(formula.math);
        const std::size_t hash = math.find('#');
        REQUIRE(hash != std::string::npos);
        CHECK(test::has_heading_anchor(std::string(TF_SOURCE_DIR) + "/" + math.substr(0, hash), math.substr(hash + 1)));
    }
}

TEST_CASE("tape --values keeps every value and gradient: a softmax's input gradient is its formula applied by hand",
          "[integration]") {
    train::RunConfig config = tiny_lm();
    config.kernels = kernels::KernelPath::reference;   // attention as its chain of ops, as `tape` shows it
    const RecordedStep step = record_training_step(config, {1, 4}, /*values=*/true);
    CHECK(step.nodes.back().op == "cross_entropy");
    CHECK(step.nodes.back().grad.item() == 1.0);   // dL/dL
    std::size_t softmaxes = 0;
    for (const TapeNode& node : step.nodes) {
        REQUIRE(node.value.defined());
        if (node.op != "softmax") continue;
        ++softmaxes;
        // The scores feed only the softmax, so their gradient is softmax's backward alone:
        // dx = y ⊙ (dy − rowsum(y ⊙ dy)), row by row of the last axis.
        const TapeNode& scores = step.nodes.at(std::stoul(node.inputs.at(0).substr(1)));
        const std::vector<double> y = node.value.to_vector(), dy = node.grad.to_vector(), dx = scores.grad.to_vector();
        const std::size_t width = static_cast<std::size_t>(node.output_shape.back());
        for (std::size_t row = 0; row < y.size() / width; ++row) {
            double y_dot_dy = 0;
            for (std::size_t j = 0; j < width; ++j) y_dot_dy += y[row * width + j] * dy[row * width + j];
            for (std::size_t j = 0; j < width; ++j)
                CHECK(dx[row * width + j] == Approx(y[row * width + j] * (dy[row * width + j] - y_dot_dy)).margin(1e-7));
        }
    }
    CHECK(softmaxes == 1);
}

TEST_CASE("tape --values prints values and gradients, and refuses a model too big to read by hand", "[integration]") {
    const test::CliResult shown = test::run_cli({"tape", kCopyTransformer, "--set", "model.d_model=8", "--set", "model.heads=2",
                                                 "--set", "model.encoder_layers=1", "--set", "model.decoder_layers=1",
                                                 "--set", "model.ffn_hidden=8", "--examples", "1", "--tokens", "3", "--values"});
    REQUIRE(shown.exit_code == 0);
    CHECK(test::count_occurrences(shown.out, "    value:\n") == test::count_occurrences(shown.out, "\n#") + 1);
    CHECK(shown.out.find("gradient dL/d(value):") != std::string::npos);
    CHECK(shown.out.find("backward: dx = y ⊙ (dy − rowsum(y ⊙ dy))") != std::string::npos);
    const test::CliResult refused = test::run_cli({"tape", kCopyTransformer, "--values"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--values prints every number"));
}
