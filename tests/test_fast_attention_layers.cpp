// The "tiled_attention" and "linear_attention" layers: built from config by the registry with
// PyTorch-style parameter names, causal and padding behaviour from the SequenceContext, gradcheck.
#include "catch.h"

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/registry.h"

using namespace tf;

namespace {

std::shared_ptr<SequenceLayer> build(const config::Json& block, DType dtype = DType::f64) {
    static Rng init_rng(21);
    LayerBuildContext context{.width = 8, .init_rng = &init_rng, .dropout_rng = nullptr, .init = {}, .dtype = dtype};
    return builtin_layers().create(block, "model.layers[0]", context);
}

const config::Json kTiled = {{"type", "tiled_attention"}, {"heads", 2}, {"query_tile", 3}, {"key_tile", 2}};
const config::Json kTiledRotary = {{"type", "tiled_attention"}, {"heads", 4}, {"rotary", true}, {"key_tile", 5}};
const config::Json kLinear = {{"type", "linear_attention"}, {"heads", 2}};

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
    CHECK_THROWS_WITH(build({{"type", "tiled_attention"}, {"heads", 3}}), Catch::Contains("model.layers[0].heads"));
    CHECK_THROWS_WITH(build({{"type", "linear_attention"}, {"heads", 2}, {"causal", true}}),
                      Catch::Contains("model.layers[0].causal"));
    CHECK_THROWS_WITH(build({{"type", "tiled_attention"}, {"heads", 2}, {"key_tile", 0}}),
                      Catch::Contains("model.layers[0].key_tile"));
}

TEST_CASE("attention layers: causal output at t ignores inputs after t", "[property]") {
    const int64_t T = 7;
    const Tensor x = random_x(2, T, 2), other = random_x(2, T, 4);
    SequenceContext causal;
    causal.causal = true;
    for (const config::Json& block : {kTiled, kTiledRotary, kLinear}) {
        const auto layer = build(block);
        const Tensor before = layer->forward(x, causal);
        // Every cut point, so each side of every query and key tile boundary is covered.
        for (int64_t t = 0; t + 1 < T; ++t) {
            INFO(block.dump() << ", inputs after " << t << " changed");
            const Tensor changed = concat({slice(x, 1, 0, t + 1), slice(other, 1, t + 1, T)}, 1);
            const Tensor after = layer->forward(changed, causal);
            CHECK(test::max_relative_difference(slice(after, 1, 0, t + 1), slice(before, 1, 0, t + 1)) < 1e-14);
            CHECK(test::max_relative_difference(slice(after, 1, t + 1, T), slice(before, 1, t + 1, T)) > 1e-6);
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
