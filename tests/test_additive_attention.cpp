// Additive (Bahdanau) and Luong attention for RNN decoders: scores by the formula, weights on the
// simplex with exactly 0 on masked source positions, f64 gradchecks w.r.t. inputs and parameters,
// and the fused additive scores against the composed ones.
#include "catch.h"
#include <cmath>
#include <tuple>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/additive_attention.h"
#include "layers/attention/additive_scores.h"
#include "module_gradcheck.h"

using namespace tf;

namespace {

const InitScheme kInit{InitKind::xavier_uniform, 0.0};

// (B, S) = (2, 4): item 1 has its last source position masked.
Tensor two_item_mask() { return test::f64({0, 0, 0, 0, 0, 0, 0, 1}, {2, 4}); }

// One flat tensor with the context and the weights, so a gradcheck covers both.
Tensor flatten(const AttentionContext& result) {
    return concat({reshape(result.context, {-1}), reshape(result.weights, {-1})}, 0);
}

}  // namespace

TEST_CASE("additive attention: score(s, h_j) = vᵀ tanh(W_q s + W_k h_j), softmax over unmasked j", "[unit][graded][A3.2]") {
    Rng rng(21);
    AdditiveAttention attention(3, 5, 6, kInit, rng, DType::f64);
    const auto params = attention.state_dict();
    const Tensor W_q = params.at("W_q.weight"), W_k = params.at("W_k.weight"), v = params.at("v.weight");
    Tensor b_k = params.at("W_k.bias");
    for (int64_t a = 0; a < 6; ++a) b_k.set({a}, 0.1 * static_cast<double>(a));  // a bias that matters
    const Tensor s = Tensor::uniform({2, 3}, -1, 1, rng, DType::f64);
    const Tensor H = Tensor::uniform({2, 4, 5}, -1, 1, rng, DType::f64);
    const AttentionContext result = attention.attend(s, attention.precompute_keys(H), H, two_item_mask());
    for (int64_t b = 0; b < 2; ++b) {
        const int64_t sources = b == 0 ? 4 : 3;
        std::vector<double> exp_scores;
        double total = 0;
        for (int64_t j = 0; j < sources; ++j) {
            double score = 0;  // vᵀ tanh(W_q s + W_k h_j + b_k), written out
            for (int64_t a = 0; a < 6; ++a) {
                double pre = b_k.at({a});
                for (int64_t q = 0; q < 3; ++q) pre += W_q.at({a, q}) * s.at({b, q});
                for (int64_t k = 0; k < 5; ++k) pre += W_k.at({a, k}) * H.at({b, j, k});
                score += v.at({0, a}) * std::tanh(pre);
            }
            exp_scores.push_back(std::exp(score));
            total += exp_scores.back();
        }
        for (int64_t j = 0; j < sources; ++j)
            REQUIRE(result.weights.at({b, j}) == Approx(exp_scores[j] / total).epsilon(1e-12));
        for (int64_t c = 0; c < 5; ++c) {
            double context = 0;  // Σ_j α_j h_j
            for (int64_t j = 0; j < sources; ++j) context += exp_scores[j] / total * H.at({b, j, c});
            REQUIRE(result.context.at({b, c}) == Approx(context).epsilon(1e-12));
        }
    }
}

TEST_CASE("attention weights are ≥ 0, sum to 1, and masked positions get exactly 0 weight and gradient", "[unit]") {
    Rng rng(22);
    AdditiveAttention additive(3, 5, 6, kInit, rng, DType::f64);
    LuongAttention general(LuongAttention::Score::general, 3, 5, kInit, rng, DType::f64);
    const Tensor s = Tensor::uniform({2, 3}, -1, 1, rng, DType::f64);
    Tensor H = Tensor::uniform({2, 4, 5}, -3, 3, rng, DType::f64);
    H.set_requires_grad();
    for (const bool use_additive : {true, false}) {  // each result is computed right before its backward
        const AttentionContext result = use_additive
                                            ? additive.attend(s, additive.precompute_keys(H), H, two_item_mask())
                                            : general.attend(s, general.precompute_keys(H), H, two_item_mask());
        for (int64_t b = 0; b < 2; ++b) {
            double total = 0;
            for (int64_t j = 0; j < 4; ++j) {
                REQUIRE(result.weights.at({b, j}) >= 0.0);
                total += result.weights.at({b, j});
            }
            REQUIRE(total == Approx(1.0).epsilon(1e-14));
        }
        REQUIRE(result.weights.at({1, 3}) == 0.0);
        Tape::current().backward(sum(result.context * result.context));
        for (int64_t c = 0; c < 5; ++c) REQUIRE(H.grad().at({1, 3, c}) == 0.0);  // masked key and value
        H.zero_grad();
    }
}

TEST_CASE("Luong dot and general scores: sᵀh_j and sᵀ W h_j", "[unit]") {
    Rng rng(23);
    LuongAttention dot(LuongAttention::Score::dot, 4, 4, kInit, rng, DType::f64);
    LuongAttention general(LuongAttention::Score::general, 3, 4, kInit, rng, DType::f64);
    REQUIRE(dot.named_parameters().empty());
    REQUIRE(general.state_dict().at("W.weight").shape() == Shape{3, 4});
    const Tensor s = test::f64({1, 0, 0, 2}, {1, 4});
    const Tensor H = test::f64({1, 1, 1, 1, /**/ 0, 0, 0, 1}, {1, 2, 4});
    // dot scores: s·h_0 = 3, s·h_1 = 2  →  α = (e³, e²) / (e³ + e²)
    const AttentionContext result = dot.attend(s, dot.precompute_keys(H), H);
    const double e3 = std::exp(3.0), e2 = std::exp(2.0);
    test::require_values(result.weights, {e3 / (e3 + e2), e2 / (e3 + e2)});
    // general: sᵀ W h_j equals the dot score of s with W h_j
    const Tensor s3 = Tensor::uniform({1, 3}, -1, 1, rng, DType::f64);
    const Tensor W = general.state_dict().at("W.weight");  // (Hq, Hk) = (3, 4)
    const Tensor Wh = matmul(H, W, {.transpose_a = false, .transpose_b = true});  // (1, 2, 3)
    const double score0 = sum(s3 * reshape(slice(Wh, 1, 0, 1), {1, 3})).item();
    const double score1 = sum(s3 * reshape(slice(Wh, 1, 1, 2), {1, 3})).item();
    const AttentionContext weighted = general.attend(s3, general.precompute_keys(H), H);
    REQUIRE(weighted.weights.at({0, 0}) == Approx(1.0 / (1.0 + std::exp(score1 - score0))).epsilon(1e-12));
    REQUIRE_THROWS_AS(LuongAttention(LuongAttention::Score::dot, 3, 4, kInit, rng), ShapeError);
}

TEST_CASE("attention rejects mismatched shapes, naming them", "[unit]") {
    Rng rng(24);
    AdditiveAttention attention(3, 5, 6, kInit, rng, DType::f64);
    const Tensor H = Tensor::zeros({2, 4, 5}, DType::f64);
    const Tensor keys = attention.precompute_keys(H);
    REQUIRE_THROWS_WITH(attention.attend(Tensor::zeros({2, 4}, DType::f64), keys, H), Catch::Contains("query (2,4)"));
    REQUIRE_THROWS_WITH(attention.attend(Tensor::zeros({2, 3}, DType::f64), keys, H, Tensor::zeros({2, 3}, DType::f64)),
                        Catch::Contains("mask (2,3)"));
    REQUIRE_THROWS_AS(attention.precompute_keys(Tensor::zeros({2, 4, 3}, DType::f64)), ShapeError);
}

TEST_CASE("additive attention gradients (query, keys=values, W_q, W_k, v) match finite differences", "[gradcheck]") {
    Rng rng(25);
    AdditiveAttention attention(3, 5, 6, kInit, rng, DType::f64);
    const Tensor s = Tensor::uniform({2, 3}, -1, 1, rng, DType::f64);
    const Tensor H = Tensor::uniform({2, 4, 5}, -1, 1, rng, DType::f64);
    test::gradcheck_inputs_and_parameters(attention, {s, H}, [&](const std::vector<Tensor>& in) {
        return flatten(attention.attend(in[0], attention.precompute_keys(in[1]), in[1], two_item_mask()));
    });
}

TEST_CASE("Luong dot and general attention gradients match finite differences", "[gradcheck]") {
    Rng rng(26);
    for (const auto score : {LuongAttention::Score::dot, LuongAttention::Score::general}) {
        LuongAttention attention(score, 5, 5, kInit, rng, DType::f64);
        const Tensor s = Tensor::uniform({2, 5}, -1, 1, rng, DType::f64);
        const Tensor H = Tensor::uniform({2, 4, 5}, -1, 1, rng, DType::f64);
        test::gradcheck_inputs_and_parameters(attention, {s, H}, [&](const std::vector<Tensor>& in) {
            return flatten(attention.attend(in[0], attention.precompute_keys(in[1]), in[1], two_item_mask()));
        });
    }
}

TEST_CASE("additive_scores: e_bj = Σ_a v_a tanh(K_bja + q_ba), by hand", "[unit]") {
    const Tensor keys = test::f64({0.5, -1.0, 2.0, 0.0}, {1, 2, 2});  // two source positions, A = 2
    const Tensor query = test::f64({0.25, 0.5}, {1, 2});
    const Tensor v = test::f64({2.0, 3.0}, {1, 2});
    const Tensor scores = additive_scores(keys, query, v);
    REQUIRE(scores.shape() == Shape{1, 2});
    CHECK(scores.at({0, 0}) == Approx(2 * std::tanh(0.75) + 3 * std::tanh(-0.5)).epsilon(1e-15));
    CHECK(scores.at({0, 1}) == Approx(2 * std::tanh(2.25) + 3 * std::tanh(0.5)).epsilon(1e-15));
    // v = 0 scores nothing; a query shift that saturates tanh (→ 1) gives Σ_a v_a.
    const Tensor unscored = additive_scores(keys, query, test::f64({0.0, 0.0}, {1, 2}));
    CHECK((unscored.at({0, 0}) == 0.0 && unscored.at({0, 1}) == 0.0));
    const Tensor saturated = additive_scores(keys, test::f64({40.0, 40.0}, {1, 2}), v);
    CHECK(saturated.at({0, 0}) == Approx(5.0).epsilon(1e-12));
    REQUIRE_THROWS_AS(additive_scores(keys, test::f64({0.0, 0.0, 0.0}, {1, 3}), v), ShapeError);
}

TEST_CASE("additive attention: the fused scores equal the composed reference in f32, values and gradients", "[unit]") {
    // Odd widths, and a batch large enough that the fused op splits it over threads.
    for (const auto& [batch, source, width] : {std::tuple{1, 3, 5}, std::tuple{3, 7, 17}, std::tuple{65, 65, 65}}) {
        INFO("B = " << batch << ", S = " << source << ", A = " << width);
        Rng rng(31);
        AdditiveAttention attention(6, 5, width, kInit, rng);
        const Tensor s = Tensor::uniform({batch, 6}, -1, 1, rng);
        const Tensor H = Tensor::uniform({batch, source, 5}, -1, 1, rng);
        auto run = [&] {
            const Tensor query = s.clone().set_requires_grad(), keys = H.clone().set_requires_grad();
            attention.zero_grad();
            Tape::current().clear();
            const Tensor out = flatten(attention.attend(query, attention.precompute_keys(keys), keys));
            Rng seed_rng(7);
            Tape::current().backward(out, Tensor::uniform(out.shape(), -1, 1, seed_rng));
            std::vector<Tensor> results{out, query.grad(), keys.grad()};
            for (const auto& [name, parameter] : attention.named_parameters()) results.push_back(parameter.grad().clone());
            return results;
        };
        const std::vector<Tensor> fast = run();
        std::vector<Tensor> reference;
        {
            kernels::ReferenceKernels composed_ops;
            reference = run();
        }
        for (std::size_t i = 0; i < fast.size(); ++i) {
            INFO("result " << i << " (output, dquery, dkeys, then the parameters' gradients)");
            CHECK(test::max_relative_difference(fast[i], reference[i]) < 2e-5);
        }
    }
}
