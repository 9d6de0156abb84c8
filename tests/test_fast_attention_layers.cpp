// multi_head_attention with the fused kernels ("kernel": "tiled" and "linear"): built from config by
// the registry with PyTorch-style parameter names, causal and padding behaviour from the
// SequenceContext, gradcheck.
#include "catch.h"
#include <algorithm>


#include "analysis/theorems/attention_twins.h"
#include "analysis/theorems/layer_theorems.h"
#include "attention_helpers.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "autograd/kernels/mode.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/forward_observer.h"
#include "layers/builtin_layers.h"

using namespace tf;

namespace {

std::shared_ptr<SequenceLayer> build(const config::Json& block, DType dtype = DType::f64) {
    static Rng init_rng(21);
    LayerBuildContext context{.width = 8, .init_rng = &init_rng, .dropout_rng = nullptr, .init = {}, .dtype = dtype};
    return builtin_layers().create(block, "model.layers[0]", context);
}

const config::Json kTiled = {{"type", "multi_head_attention"}, {"kernel", "tiled"}, {"heads", 2}, {"query_tile", 3},
                             {"key_tile", 2}};
const config::Json kTiledRotary = {{"type", "multi_head_attention"}, {"kernel", "tiled"}, {"heads", 4}, {"rotary", true},
                                   {"key_tile", 5}};
const config::Json kLinear = {{"type", "multi_head_attention"}, {"kernel", "linear"}, {"heads", 2}};

Tensor random_x(int64_t B, int64_t T, uint64_t seed) {
    Rng rng(seed);
    return Tensor::uniform({B, T, 8}, -1, 1, rng, DType::f64);
}

}  // namespace

TEST_CASE("attention layers: built by name, parameters named like PyTorch, (B, T, C) in and out", "[unit]") {
    for (const config::Json& block : {kTiled, kLinear}) {
        const auto layer = build(block);
        std::vector<std::string> names;
        for (const auto& [name, parameter] : layer->named_parameters()) names.push_back(name);
        CHECK(names == std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias",
                                                "v_proj.weight", "v_proj.bias", "o_proj.weight", "o_proj.bias"});
        CHECK(layer->forward(random_x(2, 5, 1), {}).shape() == Shape{2, 5, 8});
    }
}

TEST_CASE("attention layers: config errors name the JSON path", "[unit]") {
    CHECK_THROWS_WITH(build({{"type", "multi_head_attention"}, {"kernel", "tiled"}, {"heads", 3}}),
                      Catch::Contains("model.layers[0]") && Catch::Contains("heads 3"));
    CHECK_THROWS_WITH(build({{"type", "multi_head_attention"}, {"kernel", "linear"}, {"heads", 2}, {"causal", true}}),
                      Catch::Contains("model.layers[0].causal"));
    CHECK_THROWS_WITH(build({{"type", "multi_head_attention"}, {"kernel", "tiled"}, {"heads", 2}, {"key_tile", 0}}),
                      Catch::Contains("model.layers[0].key_tile"));
    CHECK_THROWS_WITH(build({{"type", "multi_head_attention"}, {"heads", 2}, {"kernel", "fast"}}), Catch::Contains("model.layers[0].kernel"));
}

TEST_CASE("attention layers: causal output at t ignores inputs after t, in value and gradient", "[property]") {
    const int64_t T = 7;
    const Tensor x = random_x(2, T, 2);
    SequenceContext causal;
    causal.causal = true;
    for (const config::Json& block : {kTiled, kTiledRotary, kLinear}) {
        const auto layer = build(block);
        // Every cut point, so each side of every query and key tile boundary is covered.
        for (int64_t t = 0; t + 1 < T; ++t) {
            const Measured independent = check_causal_independence([&](const Tensor& v) { return layer->forward(v, causal); }, x, t);
            INFO(block.dump() << ": " << independent.numbers);
            CHECK(independent.holds);
        }
    }
}

TEST_CASE("attention layers: padded positions do not change the other positions' outputs", "[property]") {
    for (const config::Json& block : {kTiled, kTiledRotary, kLinear}) {
        INFO(block.dump());
        const auto layer = build(block);
        const Tensor x = random_x(1, 6, 3);
        SequenceContext padded;
        padded.padding_mask = test::f64({0, 0, 0, 0, 1, 1}, {1, 6});
        const Tensor full = layer->forward(x, padded);
        const Tensor trimmed = layer->forward(slice(x, 1, 0, 4).clone(), {});
        CHECK(test::max_relative_difference(slice(full, 1, 0, 4), trimmed) < 1e-12);
    }
}

TEST_CASE("attention layers gradcheck in f64 through the projections, causal and padded", "[gradcheck]") {
    for (const config::Json& block : {kTiled, kTiledRotary, kLinear}) {
        INFO(block.dump());
        const auto layer = build(block);
        SequenceContext context;
        context.causal = true;
        context.padding_mask = test::f64({0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, {2, 5});
        const auto result = gradcheck([&](const auto& in) { return layer->forward(in[0], context); }, {random_x(2, 5, 4)});
        INFO(result.message);
        CHECK(result.ok);
    }
}

namespace {

// Two layers of the same shape and weights, one per kernel.
std::pair<std::shared_ptr<MultiHeadAttention>, std::shared_ptr<MultiHeadAttention>> same_weights(
    MultiHeadAttentionOptions options, AttentionKernel first, AttentionKernel second) {
    options.kernel = first;
    auto a = test::make_attention(options, 31);
    test::randomize_parameters(*a, 32);
    options.kernel = second;
    auto b = test::make_attention(options, 33);
    b->load_state_dict(a->state_dict());
    return {a, b};
}

}  // namespace

namespace {

// y, dL/dx and dL/d(every parameter) of L = Σ y² for one layer on x.
std::vector<Tensor> outcome(MultiHeadAttention& layer, const Tensor& x, const SequenceContext& context) {
    layer.zero_grad();
    const Tensor input = x.clone().set_requires_grad();
    Tape::current().clear();
    const Tensor y = layer(input, context);
    Tape::current().backward(sum(y * y));
    std::vector<Tensor> results{y, input.grad()};
    for (const Tensor& parameter : layer.parameters()) results.push_back(parameter.grad());
    return results;
}

double largest_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, test::max_relative_difference(a[i], b[i]));
    return worst;
}

}  // namespace

TEST_CASE("multi_head_attention: the fast path (one GEMM for Q, K, V, heads read in place) gives the composed path's "
          "outputs and gradients, and so does the tiled kernel on split heads",
          "[property]") {
    // Fast: stacked projections and tiled_self/cross_attention. Under ReferenceKernels the layer
    // takes its readable path: split heads, then the composed softmax (kernel "softmax") or
    // tiled_attention on repeated K/V heads (kernel "tiled").
    MultiHeadAttentionOptions options{.d_model = 8, .heads = 4, .tiles = {.query_tile = 2, .key_tile = 3}};
    const int kv_heads = GENERATE(4, 2, 1);
    const bool windowed = GENERATE(false, true);
    const bool tempered = GENERATE(false, true);
    options.kv_heads = kv_heads;
    if (windowed) options.pattern = AttentionPattern::sliding_window, options.window = 3;
    if (tempered) options.temperature = 0.6;
    INFO("kv_heads " << kv_heads << ", windowed " << windowed << ", temperature " << tempered);
    const auto [softmax, tiled] = same_weights(options, AttentionKernel::softmax, AttentionKernel::tiled);
    const Tensor x = random_x(2, 5, 41), memory = random_x(2, 7, 42);
    const SequenceContext self{.padding_mask = test::padding_mask(5, {0, 2}), .causal = true};
    const SequenceContext cross{.memory = memory, .memory_padding_mask = test::padding_mask(7, {1, 3})};
    for (const SequenceContext& context : {self, cross}) {
        INFO((context.memory.defined() ? "cross-attention, S = 7, T = 5" : "causal self-attention"));
        const std::vector<Tensor> fast = outcome(*softmax, x, context);
        const kernels::ReferenceKernels readable_path;
        const std::vector<Tensor> composed = outcome(*softmax, x, context);
        const std::vector<Tensor> tiled_on_split_heads = outcome(*tiled, x, context);
        CHECK(largest_difference(fast, composed) < 1e-12);
        CHECK(largest_difference(tiled_on_split_heads, composed) < 1e-12);
    }
}

TEST_CASE("multi_head_attention: the fast path runs while training and evaluating, the readable one when weights are needed",
          "[unit]") {
    // The tape tells which path ran: the fused op, or the composed softmax.
    const auto ops_of = [](MultiHeadAttention& layer, const SequenceContext& context) {
        const Tensor x = random_x(1, 4, 61).set_requires_grad();
        Tape::current().clear();
        layer(x, context);
        return Tape::current().op_names();
    };
    const auto contains = [](const std::vector<std::string>& names, const std::string& op) {
        return std::find(names.begin(), names.end(), op) != names.end();
    };
    auto plain = test::make_attention({.d_model = 8, .heads = 2}, 62);
    CHECK(contains(ops_of(*plain, {}), "tiled_self_attention"));
    CHECK(!contains(ops_of(*plain, {}), "softmax"));
    CHECK(contains(ops_of(*plain, {.memory = random_x(1, 3, 63)}), "tiled_cross_attention"));
    ForwardObserver observer;
    observer.record_attention = true;
    CHECK(contains(ops_of(*plain, {.observer = &observer}), "softmax"));   // analysis records the weights
    auto dropped = test::make_attention({.d_model = 8, .heads = 2, .dropout = 0.5}, 64);
    CHECK(contains(ops_of(*dropped, {}), "softmax"));                      // dropout acts on the weights
    dropped->eval();
    CHECK(contains(ops_of(*dropped, {}), "tiled_self_attention"));
    auto rotary = test::make_attention({.d_model = 8, .heads = 2, .rotary_base = 10000.0}, 65);
    CHECK(!contains(ops_of(*rotary, {}), "tiled_self_attention"));
}

TEST_CASE("multi_head_attention: grouped K/V heads equal full heads whose K/V projections repeat", "[property]") {
    // H = 4 query heads over H_kv = 2: query heads 0, 1 read K/V head 0 and 2, 3 read head 1. A plain
    // layer whose k/v projection rows for heads 0, 1 (and 2, 3) are copies computes the same thing
    // (mha_repeating_kv_heads; the check `tapeformer theorems` runs).
    const AttentionKernel kernel = GENERATE(AttentionKernel::softmax, AttentionKernel::tiled, AttentionKernel::linear);
    INFO("kernel " << name_of(kernel));
    auto grouped = test::make_attention({.d_model = 8, .heads = 4, .kv_heads = 2, .kernel = kernel}, 51);
    test::randomize_parameters(*grouped, 52);
    const auto full = mha_repeating_kv_heads(*grouped);
    REQUIRE(full->options().kernel == kernel);
    const Tensor x = random_x(2, 6, 54);
    const SequenceContext context{.padding_mask = test::padding_mask(6, {1, 0}), .causal = true};
    const Measured equal = check_gqa_equals_mha(*grouped, *full, x, context);
    INFO(equal.numbers);
    CHECK(equal.holds);
}

TEST_CASE("multi_head_attention: a kernel that cannot do what the config asks is a config error naming both", "[unit]") {
    const auto with = [](config::Json block) {
        block["type"] = "multi_head_attention";
        block["heads"] = 2;
        return block;
    };
    CHECK_THROWS_WITH(build(with({{"kernel", "linear"}, {"pattern", "sliding_window"}, {"window", 2}})),
                      Catch::Contains("model.layers[0]") && Catch::Contains("kernel \"linear\"") &&
                          Catch::Contains("pattern \"sliding_window\""));
    CHECK_THROWS_WITH(build(with({{"kernel", "linear"}, {"temperature", 2.0}})),
                      Catch::Contains("kernel \"linear\"") && Catch::Contains("temperature"));
    CHECK_THROWS_WITH(build(with({{"kernel", "linear"}, {"rotary", true}})),
                      Catch::Contains("kernel \"linear\"") && Catch::Contains("rotary"));
    CHECK_THROWS_WITH(build(with({{"kernel", "tiled"}, {"dropout", 0.1}})),
                      Catch::Contains("kernel \"tiled\"") && Catch::Contains("dropout"));
    CHECK_THROWS_WITH(build(with({{"kernel", "softmax"}, {"query_tile", 4}})), Catch::Contains("model.layers[0].query_tile"));
    CHECK_NOTHROW(build(with({{"kernel", "tiled"}, {"pattern", "strided"}, {"window", 2}, {"stride", 3}, {"temperature", 2.0}})));
}

TEST_CASE("multi_head_attention: kernel and pattern names map to their choices and back", "[unit]") {
    for (const std::string& name : enum_name_list<AttentionKernel>())
        CHECK(name_of(*enum_from_name<AttentionKernel>(name)) == name);
    for (const std::string& name : enum_name_list<AttentionPattern>())
        CHECK(name_of(*enum_from_name<AttentionPattern>(name)) == name);
    CHECK(enum_name_list<AttentionKernel>() == std::vector<std::string>{"softmax", "tiled", "linear"});
    CHECK(!enum_from_name<AttentionKernel>("flash").has_value());
}
