// Attention: hand-computed values, mask tables, error messages, gradchecks of scaled dot-product
// attention and multi-head attention (inputs and every parameter; GQA, MQA, cross-attention),
// and the registry building it from JSON.
#include "catch.h"
#include <cmath>
#include <string>

#include "attention_helpers.h"
#include "autograd/error.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/builtin_layers.h"
#include "module_gradcheck.h"

using namespace tf;
using test::f64;
using test::require_values;

TEST_CASE("SDPA on a 2×2 example matches the hand computation", "[unit]") {
    // Q = K = I, so the scores are I/√2 and each row's weights are σ(±1/√2) (a two-way softmax).
    const Tensor Q = f64({1, 0, 0, 1}, {2, 2}), K = Q, V = f64({1, 2, 3, 4}, {2, 2});
    const double w_self = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0))), w_other = 1.0 - w_self;
    Tensor weights;
    const Tensor out = scaled_dot_product_attention(Q, K, V, {}, std::nullopt, &weights);
    require_values(weights, {w_self, w_other, w_other, w_self});
    require_values(out, {w_self * 1 + w_other * 3, w_self * 2 + w_other * 4, w_other * 1 + w_self * 3,
                         w_other * 2 + w_self * 4});
    // Causal: query 0 sees only key 0, so it returns v_0 exactly; query 1 is unchanged.
    require_values(scaled_dot_product_attention(Q, K, V, {.causal = true}),
                   {1, 2, w_other * 1 + w_self * 3, w_other * 2 + w_self * 4});
    // τ = 1 instead of √2: weights σ(±1).
    const double w1 = 1.0 / (1.0 + std::exp(-1.0));
    require_values(scaled_dot_product_attention(Q, K, V, {}, 1.0), {w1 + 3 * (1 - w1), 2 * w1 + 4 * (1 - w1),
                                                                    (1 - w1) + 3 * w1, 2 * (1 - w1) + 4 * w1});
}

namespace {

// One mask table against its expected values, the failure naming the table.
void require_table(const std::string& table, const Tensor& mask, const std::vector<double>& expected) {
    INFO("the " << table << " table");
    require_values(mask, expected);
}

}  // namespace

TEST_CASE("mask builders give the documented tables", "[unit][graded][A2.2]") {
    // S − T = 1: query i sits at key position i + 1.
    require_table("causal mask, causal_mask(2, 3),", causal_mask(2, 3), {0, 0, 1,
                                                                      0, 0, 0});
    require_table("sliding-window mask, sliding_window_mask(4, 4, 2, false),", sliding_window_mask(4, 4, 2, false),
                  {0, 0, 1, 1,
                   0, 0, 0, 1,
                   1, 0, 0, 0,
                   1, 1, 0, 0});
    require_table("causal sliding-window mask, sliding_window_mask(4, 4, 2, true),", sliding_window_mask(4, 4, 2, true),
                  {0, 1, 1, 1,
                   0, 0, 1, 1,
                   1, 0, 0, 1,
                   1, 1, 0, 0});
    // local window 1 (itself), stride 3, one global token: key 0 seen by all, query 0 sees all.
    require_table("strided sparse mask, strided_sparse_mask(5, 5, 1, 3, 1),", strided_sparse_mask(5, 5, 1, 3, 1),
                  {0, 0, 0, 0, 0,
                   0, 0, 1, 1, 0,
                   0, 1, 0, 1, 1,
                   0, 1, 1, 0, 1,
                   0, 0, 1, 1, 0});
    const Tensor keys = padding_mask_to_keys(test::padding_mask(3, {0, 2}));
    INFO("the padding mask, padding_mask_to_keys of items with 3 and 1 real keys of 3: (B, 1, 1, S)");
    CHECK(keys.shape() == Shape{2, 1, 1, 3});
    require_table("padding mask", keys, {0, 0, 0, 0, 1, 1});
}

TEST_CASE("masks combine by logical or, broadcasting", "[unit]") {
    // (GCC 12.2 at -O3 -march=native miscompiles the literal {1, 1, 1, 0} here into {1, 1, 1, 1};
    // this 3×3 table avoids that pattern.)
    require_values(mask_or(causal_mask(3, 3), f64({1, 0, 0}, {3})), {1, 1, 1,
                                                                     1, 0, 1,
                                                                     1, 0, 0});
    CHECK(combined_mask({.causal = true, .key_padding = test::padding_mask(3, {0, 1})}, {2, 4, 2, 3}).shape() ==
          Shape{2, 1, 2, 3});
    CHECK(!combined_mask({}, {2, 4, 2, 3}).defined());
}

TEST_CASE("a query that sees no key gives a zero output row, not NaN", "[unit]") {
    Rng rng(3);
    const Tensor Q = test::random_tensor({2, 1, 3, 4}, rng), K = test::random_tensor({2, 1, 3, 4}, rng);
    const Tensor V = test::random_tensor({2, 1, 3, 4}, rng);
    const Tensor out = scaled_dot_product_attention(Q, K, V, {.key_padding = test::padding_mask(3, {0, 3})});
    for (int64_t t = 0; t < 3; ++t)
        for (int64_t d = 0; d < 4; ++d) {
            CHECK(out.at({1, 0, t, d}) == 0.0);
            CHECK(std::isfinite(out.at({0, 0, t, d})));
        }
}

TEST_CASE("attention errors name the shapes and numbers involved", "[unit]") {
    const Tensor Q = Tensor::zeros({2, 4, 3, 8}), K = Tensor::zeros({2, 4, 5, 6}), V = Tensor::zeros({2, 4, 5, 6});
    REQUIRE_THROWS_AS(scaled_dot_product_attention(Q, K, V), ShapeError);
    REQUIRE_THROWS_WITH(scaled_dot_product_attention(Q, K, V),
                        Catch::Contains("(2,4,3,8)") && Catch::Contains("query width 8 and key width 6 differ"));
    const Tensor K3 = Tensor::zeros({2, 3, 5, 8});
    REQUIRE_THROWS_WITH(scaled_dot_product_attention(Q, K3, K3), Catch::Contains("4 query heads are not a multiple of 3"));
    const Tensor K4 = Tensor::zeros({2, 4, 5, 8});
    REQUIRE_THROWS_WITH(scaled_dot_product_attention(Q, K4, K4, {.key_padding = Tensor::zeros({2, 4})}),
                        Catch::Contains("key padding (2,4) does not fit scores (2,4,3,5)"));
    REQUIRE_THROWS_AS(scaled_dot_product_attention(Q, K4, K4, {}, 0.0), ValueError);
    REQUIRE_THROWS_WITH(test::make_attention({.d_model = 10, .heads = 3}),
                        Catch::Contains("d_model 10 is not divisible by heads 3"));
    REQUIRE_THROWS_WITH(test::make_attention({.d_model = 8, .heads = 4, .kv_heads = 3}),
                        Catch::Contains("heads 4 is not divisible by kv_heads 3"));
    REQUIRE_THROWS_WITH(test::make_attention({.d_model = 8, .heads = 2, .pattern = AttentionPattern::sliding_window}),
                        Catch::Contains("needs window ≥ 1"));
    REQUIRE_THROWS_WITH(sliding_window_mask(3, 3, 0, false), Catch::Contains("window must be ≥ 1, got 0"));
}

TEST_CASE("SDPA's gradient w.r.t. Q, K, V matches central differences (causal + padding)", "[gradcheck]") {
    Rng rng(11);
    const Tensor mask_keys = test::padding_mask(4, {0, 1});
    const auto T = GENERATE(3, 4);  // S = 4: T = 3 exercises the S > T causal offset
    const std::vector<Tensor> inputs = {test::random_tensor({2, 2, T, 3}, rng), test::random_tensor({2, 2, 4, 3}, rng),
                                        test::random_tensor({2, 2, 4, 5}, rng)};
    const GradcheckResult result = gradcheck([&](const std::vector<Tensor>& in) {
        return scaled_dot_product_attention(in[0], in[1], in[2], {.causal = true, .key_padding = mask_keys});
    }, inputs);
    INFO(result.message);
    CHECK(result.checked == 2 * 2 * T * 3 + 2 * 2 * 4 * 3 + 2 * 2 * 4 * 5);
    CHECK(result.ok);
}

TEST_CASE("grouped SDPA (4 query heads, 2 key/value heads) has the right gradient", "[gradcheck]") {
    Rng rng(12);
    const std::vector<Tensor> inputs = {test::random_tensor({2, 4, 3, 2}, rng), test::random_tensor({2, 2, 3, 2}, rng),
                                        test::random_tensor({2, 2, 3, 3}, rng)};
    const GradcheckResult result = gradcheck([](const std::vector<Tensor>& in) {
        return scaled_dot_product_attention(in[0], in[1], in[2], {.causal = true}, 0.7);
    }, inputs);
    INFO(result.message);
    CHECK(result.ok);
}

TEST_CASE("multi-head self-attention: gradient w.r.t. the input and every parameter", "[gradcheck]") {
    const auto kv_heads = GENERATE(2, 1, 0);  // GQA, MQA, plain MHA (H = 4)
    INFO("kv_heads " << kv_heads);
    auto mha = test::make_attention({.d_model = 8, .heads = 4, .kv_heads = kv_heads});
    test::randomize_parameters(*mha, 21);
    Rng rng(22);
    const SequenceContext context{.padding_mask = test::padding_mask(4, {0, 1}), .causal = true};
    test::require_module_gradcheck(*mha, [&](const std::vector<Tensor>& in) { return (*mha)(in[0], context); },
                                   {test::random_tensor({2, 4, 8}, rng)});
}

TEST_CASE("multi-head attention with a sliding window and no biases: gradient", "[gradcheck]") {
    auto mha = test::make_attention({.d_model = 4, .heads = 2, .bias = Bias::none, .pattern = AttentionPattern::sliding_window, .window = 2});
    test::randomize_parameters(*mha, 23);
    Rng rng(24);
    CHECK(mha->named_parameters().size() == 4);
    test::require_module_gradcheck(*mha, [&](const std::vector<Tensor>& in) { return (*mha)(in[0], {}); },
                                   {test::random_tensor({2, 4, 4}, rng)});
}

TEST_CASE("cross-attention: gradient w.r.t. queries, memory and every parameter", "[gradcheck]") {
    auto mha = test::make_attention({.d_model = 6, .heads = 2});
    test::randomize_parameters(*mha, 25);
    Rng rng(26);
    const Tensor memory_padding = test::padding_mask(4, {1, 2});
    test::require_module_gradcheck(*mha, [&](const std::vector<Tensor>& in) {
        return (*mha)(in[0], {.memory = in[1], .memory_padding_mask = memory_padding});
    }, {test::random_tensor({2, 3, 6}, rng), test::random_tensor({2, 4, 6}, rng)});
}

TEST_CASE("attention weights are recorded for analysis only when the observer asks", "[unit]") {
    auto mha = test::make_attention({.d_model = 8, .heads = 4, .kv_heads = 2});
    mha->assign_names("cross_attn");
    Rng rng(27);
    const Tensor x = test::random_tensor({2, 3, 8}, rng), memory = test::random_tensor({2, 5, 8}, rng);
    ForwardObserver quiet;
    (*mha)(x, {.observer = &quiet});
    CHECK(quiet.attention.empty());
    ForwardObserver recorder{.record_attention = true};
    (*mha)(x, {.memory = memory, .observer = &recorder});
    REQUIRE(recorder.attention.size() == 1);
    const AttentionRecord& record = recorder.attention[0];
    CHECK(record.name == "cross_attn");
    CHECK(record.kind == "cross");
    CHECK(record.keys_from == SequenceSide::source);
    CHECK(record.weights.shape() == Shape{2, 4, 3, 5});
    CHECK(record.keys.shape() == Shape{2, 2, 5, 2});
    CHECK(!record.weights.requires_grad());
}

TEST_CASE("attention dropout acts while training and not in eval mode", "[unit]") {
    auto dropped = test::make_attention({.d_model = 8, .heads = 2, .dropout = 0.5});
    auto plain = test::make_attention({.d_model = 8, .heads = 2});
    plain->load_state_dict(dropped->state_dict());
    Rng rng(28);
    const Tensor x = test::random_tensor({2, 4, 8}, rng);
    CHECK(test::max_relative_difference((*dropped)(x, {}), (*plain)(x, {})) > 1e-3);
    dropped->eval();
    CHECK(test::max_relative_difference((*dropped)(x, {}), (*plain)(x, {})) == 0.0);
}

TEST_CASE("the registry builds multi_head_attention from JSON and names a bad key's path", "[unit]") {
    Rng init_rng(1);
    const LayerBuildContext build{.width = 8, .init_rng = &init_rng, .dropout_rng = std::make_shared<Rng>(2)};
    const auto json = config::Json::parse(R"({"type": "multi_head_attention", "heads": 4, "kv_heads": 2,
                                              "pattern": "strided", "window": 3, "stride": 2, "global_tokens": 1})");
    const auto layer = builtin_layers().create(json, "model.layers[0]", build);
    CHECK(layer->parameter_count() == (8 * 8 + 8) * 2 + (8 * 4 + 4) * 2);
    CHECK(layer->forward(Tensor::ones({2, 5, 8}), {}).shape() == Shape{2, 5, 8});
    const auto typo = config::Json::parse(R"({"type": "multi_head_attention", "heads": 2, "hedas": 4})");
    REQUIRE_THROWS_WITH(builtin_layers().create(typo, "model.layers[0]", build),
                        Catch::Contains("model.layers[0].hedas: unknown key"));
    const auto indivisible = config::Json::parse(R"({"type": "multi_head_attention", "heads": 3})");
    REQUIRE_THROWS_AS(builtin_layers().create(indivisible, "model.layers[0]", build), ConfigError);
    REQUIRE_THROWS_WITH(builtin_layers().create(indivisible, "model.layers[0]", build),
                        Catch::Contains("model.layers[0]: MultiHeadAttention: d_model 8 is not divisible by heads 3"));
    const auto wrong_width = config::Json::parse(R"({"type": "multi_head_attention", "heads": 2, "d_model": 6})");
    REQUIRE_THROWS_WITH(builtin_layers().create(wrong_width, "m", build), Catch::Contains("m.d_model: must equal"));
}
