// The worked attention example of docs/extending.md (alibi_attention): central differences in f64,
// the distance penalty by hand, the softmax attention it reduces to without a penalty, and — the
// point of the example — a layer registered in one file whose weights reach `analyze` with no other
// edit (tests/test_lm_blocks.cpp holds it, with the other attention blocks, to the curriculum's τ).
#include "catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "attention_helpers.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/examples/alibi_attention.h"
#include "models/build.h"
#include "module_gradcheck.h"
#include "run_helpers.h"

using namespace tf;
using tf::test::random_sequence;

namespace {

std::shared_ptr<AlibiAttention> make_alibi(double slope, uint64_t seed = 3) {
    Rng rng(seed);
    return std::make_shared<AlibiAttention>(AlibiAttentionOptions{.width = 4, .slope = slope}, InitScheme{InitKind::normal, 0.5}, rng,
                                            DType::f64);
}

}  // namespace

TEST_CASE("alibi_attention: input and every parameter match central differences (f64), causal and padded", "[gradcheck]") {
    auto layer = make_alibi(0.5);
    const SequenceContext context{.padding_mask = test::padding_mask(5, {0, 2}), .causal = true};
    test::require_module_gradcheck(*layer, [&](const std::vector<Tensor>& in) { return (*layer)(in[0], context); },
                                   {random_sequence(2, 5, 4, 11)});
}

TEST_CASE("alibi_attention: with equal scores the weights fall by exp(−m) per position of distance", "[unit]") {
    // W_q = 0 and b_q = 0 make every q·k zero, so s_ij = −m·|i − j| and, causally, row 2 weighs keys
    // 0, 1, 2 as e^{−2m}, e^{−m}, 1 over their sum.
    const double m = 0.7;
    auto layer = make_alibi(m);
    auto state = layer->state_dict();
    for (const char* name : {"q_proj.weight", "q_proj.bias"}) {
        Tensor zero = state.at(name);
        for (int64_t i = 0; i < zero.numel(); ++i) zero.data<double>()[i] = 0.0;
    }
    ForwardObserver recorder{.record_attention = true};
    (*layer)(random_sequence(1, 3, 4, 5), {.causal = true, .observer = &recorder});
    REQUIRE(recorder.attention.size() == 1);
    const Tensor& A = recorder.attention[0].weights;   // (1, 1, 3, 3)
    const double total = std::exp(-2 * m) + std::exp(-m) + 1;
    CHECK(A.at({0, 0, 2, 0}) == Approx(std::exp(-2 * m) / total).epsilon(1e-12));
    CHECK(A.at({0, 0, 2, 1}) == Approx(std::exp(-m) / total).epsilon(1e-12));
    CHECK(A.at({0, 0, 2, 2}) == Approx(1 / total).epsilon(1e-12));
    CHECK(A.at({0, 0, 0, 1}) == 0.0);   // causal: the future gets no weight
}

TEST_CASE("alibi_attention with slope 0 is one-head softmax attention", "[property]") {
    auto alibi = make_alibi(0.0);
    auto softmax = test::make_attention({.d_model = 4, .heads = 1});
    softmax->load_state_dict(alibi->state_dict());   // the same parameter names
    const Tensor x = random_sequence(2, 6, 4, 9);
    const SequenceContext context{.padding_mask = test::padding_mask(6, {1, 0}), .causal = true};
    CHECK(test::max_relative_difference((*alibi)(x, context), (*softmax)(x, context)) < 1e-12);
}

TEST_CASE("analyze draws the heatmaps of a registry attention layer it has never heard of", "[integration]") {
    test::TempDir dir;
    std::string lines;
    for (int i = 0; i < 40; ++i) lines += i % 2 ? "a cab\n" : "bad cab\n";
    test::write_text(dir / "lines.txt", lines);
    const nlohmann::json config = {
        {"name", "alibi"}, {"seed", 1},
        {"model", {{"type", "lm"}, {"d_model", 8}, {"layers", 1}, {"max_length", 8}, {"block", {{"type", "alibi_attention"}}}}},
        {"data", {{"source", "text"}, {"path", dir / "lines.txt"}, {"split", "lines"}, {"tokenizer", "char"}, {"task", "lm"},
                  {"max_length", 7}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
        {"train", {{"max_steps", 2}, {"log_every", 1}, {"eval_every", 0}, {"checkpoint_every", 2}}}};
    test::write_text(dir / "alibi.json", config.dump());
    REQUIRE(test::run_cli({"train", dir / "alibi.json", "--run-dir", dir / "run", "--quiet"}).exit_code == 0);
    const test::CliResult analyzed = test::run_cli({"analyze", "--run", dir / "run", "--out", dir / "analysis"});
    INFO(analyzed.err);
    REQUIRE(analyzed.exit_code == 0);
    const nlohmann::json report = nlohmann::json::parse(test::read_text(dir / "analysis/analysis.json"));
    REQUIRE(report["attention"].size() == 1);
    CHECK(report["attention"][0]["name"] == "blocks.layers.0");
    CHECK(std::filesystem::exists(dir / "analysis/plots/blocks_layers_0_head0.svg"));
}

TEST_CASE("a registry attention layer is every transformer block's self-attention by name", "[unit]") {
    // "self_attention": {"type": "alibi_attention"} in a seq2seq transformer: encoder and decoder
    // self-attention are the example (cross-attention stays multi-head), and analysis records them.
    const config::Json section = {{"type", "transformer"}, {"d_model", 4}, {"heads", 2}, {"encoder_layers", 1},
                                  {"decoder_layers", 1}, {"max_length", 8}, {"dropout", 0.0},
                                  {"self_attention", {{"type", "alibi_attention"}, {"slope", 0.5}}}};
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = 9;
    const auto model = build_model(read_model_config(reader), build);
    ModelInput input;
    input.src = IndexTensor({4, 5, 6}, {1, 3});
    input.tgt_in = IndexTensor({1, 4, 5, 6}, {1, 4});
    ForwardObserver recorder{.record_attention = true};
    input.observer = &recorder;
    NoGradGuard no_grad;
    model->forward(input);
    std::vector<std::string> recorded;
    for (const AttentionRecord& record : recorder.attention) recorded.push_back(record.name + " " + record.kind);
    CHECK(recorded == std::vector<std::string>{"encoder.layers.0.self_attn self", "decoder.layers.0.self_attn self",
                                               "decoder.layers.0.cross_attn cross"});
    CHECK(recorder.attention[0].weights.shape() == Shape{1, 1, 3, 3});   // one head over the source

    config::Json misspelt = section;
    misspelt["self_attention"] = {{"type", "alibi_attention"}, {"slop", 0.5}};
    config::JsonReader bad(misspelt, "model");
    CHECK_THROWS_WITH(read_model_config(bad), Catch::Contains("model.self_attention.slop"));
}
