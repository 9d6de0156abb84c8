// The basic layers — Linear, Embedding, LayerNorm, Dropout, FeedForward — and the initialisation
// schemes: gradchecks over inputs and every parameter, hand-computed values, and their promises.
#include "catch.h"
#include <cmath>
#include <memory>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "attention_helpers.h"
#include "helpers.h"
#include "layers/dropout.h"
#include "layers/embedding.h"
#include "layers/feed_forward.h"
#include "layers/init.h"
#include "layers/layer_norm.h"
#include "layers/linear.h"
#include "layers/builtin_layers.h"
#include "module_gradcheck.h"

using namespace tf;

namespace {
const InitScheme kXavier{InitKind::xavier_uniform, 0.0};
}

TEST_CASE("Linear computes x·Wᵀ + b with W stored (out, in)", "[unit]") {
    Rng rng(1);
    Linear linear(2, 3, Bias::learned, kXavier, rng, DType::f64);
    const auto params = linear.named_parameters();
    REQUIRE(params.size() == 2);
    CHECK(params[0].first == "weight");
    CHECK(params[0].second.shape() == Shape{3, 2});
    Tensor w = params[0].second, b = params[1].second;
    for (int64_t i = 0; i < 6; ++i) w.set({i / 2, i % 2}, static_cast<double>(i + 1));  // [[1,2],[3,4],[5,6]]
    b.set({0}, 0.5);
    test::require_values(linear(test::f64({1, 1, 2, 0}, {2, 2})), {3.5, 7, 11, 2.5, 6, 10});
    Linear no_bias(2, 3, Bias::none, kXavier, rng, DType::f64);
    CHECK(no_bias.named_parameters().size() == 1);
}

// Parameters are randomized first: at γ = 1, β = 0 and zero biases a layer that mixed up or
// dropped a parameter would compute the same thing.
TEST_CASE("Linear, LayerNorm and FeedForward gradcheck over inputs and every parameter", "[gradcheck]") {
    Rng rng(2);
    const Tensor x = Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64);
    Linear linear(4, 5, Bias::learned, kXavier, rng, DType::f64);
    test::randomize_parameters(linear, 21);
    test::require_module_gradcheck(linear, [&](const std::vector<Tensor>& in) { return linear(in[0]); }, {x});

    LayerNorm norm(4, 1e-5, DType::f64);
    test::randomize_parameters(norm, 22);
    test::require_module_gradcheck(norm, [&](const std::vector<Tensor>& in) { return norm(in[0]); }, {x});

    const Activation activation = GENERATE(Activation::relu, Activation::gelu);
    INFO(name_of(activation));
    FeedForward ffn(4, 6, activation, 0.0, nullptr, kXavier, rng, DType::f64);
    test::randomize_parameters(ffn, 23);
    test::require_module_gradcheck(ffn, [&](const std::vector<Tensor>& in) { return ffn(in[0]); }, {x});
}

TEST_CASE("LayerNorm and FeedForward compute their formulas from their named parameters", "[unit]") {
    Rng rng(7);
    const Tensor x = Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64);
    LayerNorm norm(4, 1e-5, DType::f64);
    test::randomize_parameters(norm, 24);
    auto p = norm.state_dict();
    CHECK(test::max_relative_difference(norm(x), layer_norm(x, p["weight"], p["bias"], 1e-5)) < 1e-14);

    // FFN(x) = W₂ · act(W₁x + b₁) + b₂, with the activation the constructor was given.
    const Activation activation = GENERATE(Activation::relu, Activation::gelu);
    INFO(name_of(activation));
    FeedForward ffn(4, 6, activation, 0.0, nullptr, kXavier, rng, DType::f64);
    test::randomize_parameters(ffn, 25);
    p = ffn.state_dict();
    const Tensor hidden = matmul(x, p["linear1.weight"], {.transpose_b = true}) + p["linear1.bias"];
    const Tensor expected =
        matmul(activation == Activation::gelu ? gelu(hidden) : relu(hidden), p["linear2.weight"], {.transpose_b = true}) + p["linear2.bias"];
    CHECK(test::max_relative_difference(ffn(x), expected) < 1e-14);
}

TEST_CASE("Embedding reads rows, the padding row stays zero and gets no gradient", "[unit]") {
    Rng rng(3);
    Embedding embedding(5, 3, 0, InitScheme{InitKind::normal, 1.0}, rng, DType::f64);
    const Tensor table = embedding.weight();
    for (int64_t c = 0; c < 3; ++c) CHECK(table.at({0, c}) == 0.0);
    Tape::current().clear();
    const Tensor out = embedding(IndexTensor({2, 0, 2, 4}, {2, 2}));  // (2, 2, 3)
    REQUIRE(out.shape() == Shape{2, 2, 3});
    for (int64_t c = 0; c < 3; ++c) CHECK(out.at({0, 0, c}) == table.at({2, c}));
    Tape::current().backward(sum(out * out + out));
    const Tensor grad = table.grad();
    for (int64_t c = 0; c < 3; ++c) {
        CHECK(grad.at({0, c}) == 0.0);                            // padding: no gradient
        CHECK(grad.at({2, c}) == Approx(2 * (2 * table.at({2, c}) + 1)));  // used twice
        CHECK(grad.at({1, c}) == 0.0);                            // unused
    }
    REQUIRE_THROWS_WITH(Embedding(4, 2, 4, kXavier, rng), Catch::Contains("padding index 4 is outside the vocabulary of 4"));
}

TEST_CASE("Embedding gradchecks with respect to its table", "[gradcheck]") {
    Rng rng(4);
    Embedding embedding(6, 3, 1, InitScheme{InitKind::normal, 1.0}, rng, DType::f64);
    const IndexTensor ids({2, 1, 5, 2}, {2, 2});
    const auto checked = test::gradcheck_module(embedding, [&](const std::vector<Tensor>&) { return embedding(ids); }, {});
    INFO(checked.worst << ": " << checked.result.message);
    CHECK(checked.result.ok);
}

TEST_CASE("Dropout: identity in eval mode and at p = 0, inverted scaling in training", "[unit]") {
    auto rng = std::make_shared<Rng>(5);
    Dropout dropout(0.5, rng);
    const Tensor x = Tensor::ones({1000}, DType::f64);
    dropout.eval();
    CHECK(dropout(x).shares_storage(x));
    dropout.train();
    Dropout none(0.0, nullptr);  // p = 0 needs no Rng: nothing is drawn
    none.train();
    CHECK(none(x).shares_storage(x));
    Dropout none_with_rng(0.0, rng);
    none_with_rng.train();
    CHECK(none_with_rng(x).shares_storage(x));
    const auto y = dropout(x).to_vector();
    double total = 0;
    for (double v : y) {
        CHECK((v == 0.0 || v == 2.0));
        total += v;
    }
    CHECK(total / 1000 == Approx(1.0).margin(0.1));
    REQUIRE_THROWS_WITH(Dropout(0.5, nullptr), Catch::Contains("needs an Rng"));
}

TEST_CASE("initialisation schemes have their stated spread", "[unit]") {
    Rng rng(6);
    // xavier_uniform: U(−a, a), a = √(6 / (fan_in + fan_out)) = √(6/200): variance a²/3 = 0.01
    const auto xavier = init_tensor({200, 100}, 100, 100, {InitKind::xavier_uniform, 0}, rng, DType::f64).to_vector();
    double bound = 0, variance = 0;
    for (double v : xavier) bound = std::max(bound, std::abs(v)), variance += v * v / static_cast<double>(xavier.size());
    CHECK(bound <= std::sqrt(6.0 / 200));
    CHECK(variance == Approx(0.01).epsilon(0.05));
    // kaiming_normal: N(0, 2 / fan_in) = N(0, 0.02)
    const auto kaiming = init_tensor({200, 100}, 100, 100, {InitKind::kaiming_normal, 0}, rng, DType::f64).to_vector();
    variance = 0;
    for (double v : kaiming) variance += v * v / static_cast<double>(kaiming.size());
    CHECK(variance == Approx(0.02).epsilon(0.05));
    test::require_values(init_tensor({2}, 1, 1, {InitKind::ones, 0}, rng, DType::f64), {1, 1});
    // An unknown scheme never reaches init_tensor: the config reader refuses its name, with the path.
    CHECK_FALSE(enum_from_name<InitKind>("glorot").has_value());
    const LayerBuildContext build{.width = 3, .init_rng = &rng};
    REQUIRE_THROWS_WITH(builtin_layers().create({{"type", "gru"}, {"init", "glorot"}}, "m", build),
                        Catch::StartsWith("m.init: expected one of \"pytorch\", \"xavier_uniform\"") &&
                            Catch::Contains("got \"glorot\""));
}
