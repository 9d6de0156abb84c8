// What the math of attention promises (docs/math/attention.md, docs/math/theory.md), checked on our
// attention: weights on the simplex, masked keys with exactly zero weight and gradient, convex hull,
// permutation equivariance, causality, temperature limits, the √d_k scaling, parameter count,
// GQA/window/identity equivalences, the analytic backward. Where `tapeformer theorems` measures the
// same statement, the test calls its check (src/analysis/*_theorems.h).
#include "catch.h"
#include <algorithm>
#include <cmath>

#include "analysis/theorems/attention_theorems.h"
#include "analysis/theorems/attention_twins.h"
#include "analysis/theorems/layer_theorems.h"
#include "attention_helpers.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/positional.h"

using namespace tf;

namespace {

struct Qkv {
    Tensor Q, K, V;
};

Qkv random_qkv(int64_t T, int64_t S, uint64_t seed, DType dtype = DType::f64) {
    Rng rng(seed);
    return {test::random_tensor({2, 2, T, 3}, rng, dtype), test::random_tensor({2, 2, S, 3}, rng, dtype),
            test::random_tensor({2, 2, S, 4}, rng, dtype)};
}

}  // namespace

TEST_CASE("weights lie on the simplex and masked keys get exactly zero weight (docs/math/theory.md §1)", "[property]") {
    const Qkv in = random_qkv(4, 5, 1);
    const Tensor padding = test::padding_mask(5, {0, 2});
    Tensor A;
    scaled_dot_product_attention(in.Q, in.K, in.V, {.causal = true, .key_padding = padding}, std::nullopt, &A);
    const Measured simplex = check_rows_sum_to_one(A);
    INFO(simplex.numbers);
    CHECK(simplex.holds);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < 4; ++t)
                for (int64_t s = 0; s < 5; ++s)
                    if (s > t + 1 || padding.at({b, s}) != 0) CHECK(A.at({b, h, t, s}) == 0.0);  // causal offset S − T = 1
}

TEST_CASE("padded keys get exactly zero gradient in dK and dV (docs/math/theory.md §1: dV = Aᵀ dO, A = 0 there)",
          "[property]") {
    Qkv in = random_qkv(3, 4, 2);
    for (Tensor* t : {&in.Q, &in.K, &in.V}) t->set_requires_grad();
    const Tensor out = scaled_dot_product_attention(in.Q, in.K, in.V, {.key_padding = test::padding_mask(4, {1, 2})});
    Rng rng(3);
    Tape::current().backward(out, test::random_tensor(out.shape(), rng));
    const Tensor dK = in.K.grad(), dV = in.V.grad();
    for (int64_t h = 0; h < 2; ++h) {
        for (int64_t d = 0; d < 3; ++d) {
            CHECK(dK.at({0, h, 3, d}) == 0.0);
            CHECK(dK.at({1, h, 2, d}) == 0.0);
            CHECK(dK.at({1, h, 3, d}) == 0.0);
            CHECK(dK.at({0, h, 2, d}) != 0.0);  // a visible key does get a gradient
        }
        for (int64_t d = 0; d < 4; ++d) {
            CHECK(dV.at({0, h, 3, d}) == 0.0);
            CHECK(dV.at({1, h, 2, d}) == 0.0);
            CHECK(dV.at({1, h, 3, d}) == 0.0);
        }
    }
}

TEST_CASE("each output is Σ_j w_j v_j with w on the simplex, inside the values' hull (docs/math/theory.md §1)",
          "[property]") {
    const Qkv in = random_qkv(4, 4, 4);
    Tensor A;
    const Tensor out = scaled_dot_product_attention(in.Q, in.K, in.V, {.causal = true}, std::nullopt, &A);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < 4; ++t)
                for (int64_t d = 0; d < 4; ++d) {
                    double combination = 0;
                    for (int64_t s = 0; s < 4; ++s) combination += A.at({b, h, t, s}) * in.V.at({b, h, s, d});
                    CHECK(out.at({b, h, t, d}) == Approx(combination).epsilon(1e-13).margin(1e-13));
                }
    const Measured hull = check_outputs_in_value_hull(in.V, out, causal_mask(4, 4));  // the keys each t can see
    INFO(hull.numbers);
    CHECK(hull.holds);
}

TEST_CASE("self-attention without positions is permutation equivariant, positions break it (docs/math/theory.md §2)",
          "[property]") {
    auto mha = test::make_attention({.d_model = 8, .heads = 2});
    test::randomize_parameters(*mha, 5);
    Rng rng(6);
    const Tensor x = test::random_tensor({2, 5, 8}, rng);
    const std::vector<int64_t> order = {3, 0, 4, 1, 2};
    CHECK(check_permutation_equivariance([&](const Tensor& v) { return (*mha)(v, {}); }, x, order).holds);
    const SinusoidalPositionalEncoding positions(5, 8, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    CHECK_FALSE(check_permutation_equivariance([&](const Tensor& v) { return (*mha)(positions(v), {}); }, x, order).holds);
}

TEST_CASE("causal SDPA and MHA: output at t is bit-identical when inputs after t change (Vaswani et al. 2017 §3.2.3)",
          "[property]") {
    const int64_t T = 6, t = 2;
    Qkv in = random_qkv(T, T, 7, DType::f32);
    auto mha = test::make_attention({.d_model = 8, .heads = 2, .kv_heads = 1}, 8, DType::f32);
    Rng rng(9);
    const Tensor x = test::random_tensor({2, T, 8}, rng, DType::f32);
    const Tensor sdpa_before = scaled_dot_product_attention(in.Q, in.K, in.V, {.causal = true});
    Qkv changed{in.Q.clone(), in.K.clone(), in.V.clone()};
    for (int64_t s = t + 1; s < T; ++s) {
        for (int64_t d = 0; d < 3; ++d) changed.Q.set({1, 0, s, d}, 9.0), changed.K.set({0, 1, s, d}, -7.0);
        for (int64_t d = 0; d < 4; ++d) changed.V.set({1, 1, s, d}, 5.0);
    }
    const Tensor sdpa_after = scaled_dot_product_attention(changed.Q, changed.K, changed.V, {.causal = true});
    CHECK(slice(sdpa_after, 2, 0, t + 1).to_vector() == slice(sdpa_before, 2, 0, t + 1).to_vector());
    const Measured mha_causal = check_causal_independence([&](const Tensor& v) { return (*mha)(v, {.causal = true}); }, x, t);
    INFO(mha_causal.numbers);
    CHECK(mha_causal.holds);
}

TEST_CASE("temperature limits: τ→0 gives the argmax one-hot, τ→∞ uniform weights (docs/math/theory.md §3)",
          "[property]") {
    const Qkv in = random_qkv(4, 5, 10);
    const Measured limits = check_temperature_limits([&](double tau) { return attention_weights(in.Q, in.K, {}, tau); });
    INFO(limits.numbers);
    CHECK(limits.holds);
}

TEST_CASE("Var(q·k) ≈ d_k, and ≈ 1 after dividing by √d_k (Vaswani et al. 2017 §3.2.1, footnote 4)", "[property]") {
    // check_dot_product_variance allows 6 standard errors of each estimate (docs/math/theory.md §10).
    Rng rng(11);
    const Tensor q = test::random_tensor({50000, 64}, rng), k = test::random_tensor({50000, 64}, rng);
    const Measured variance = check_dot_product_variance(q, k);
    INFO(variance.numbers);
    CHECK(variance.holds);
}

TEST_CASE("multi-head attention has 4·d² + 4·d parameters, whatever the head count (docs/math/attention.md)",
          "[property]") {
    for (const int64_t d : {8, 12})
        for (const int64_t heads : {1, 2, 4}) {
            INFO("d = " << d << ", heads = " << heads);
            const auto mha = test::make_attention({.d_model = d, .heads = heads});
            CHECK(mha->parameter_count() == 4 * d * d + 4 * d);
            CHECK(check_parameter_count(mha->options(), mha->parameter_count()).holds);
        }
}

TEST_CASE("GQA and MQA equal plain MHA whose K/V heads repeat the group's shared head (Ainslie et al. 2023)",
          "[property]") {
    const int64_t C = 8, H = 4;
    Rng rng(13);
    const Tensor x = test::random_tensor({2, 5, C}, rng);
    const SequenceContext context{.padding_mask = test::padding_mask(5, {0, 2}), .causal = true};
    for (const int64_t kv_heads : {1, 2}) {  // 1 kv head is multi-query attention
        INFO("kv_heads = " << kv_heads);
        auto gqa = test::make_attention({.d_model = C, .heads = H, .kv_heads = kv_heads});
        test::randomize_parameters(*gqa, 12);
        const Measured equal = check_gqa_equals_mha(*gqa, *mha_repeating_kv_heads(*gqa), x, context);
        INFO(equal.numbers);
        CHECK(equal.holds);
    }
}

TEST_CASE("a sliding window that hides no key equals full attention, one key narrower does not (Beltagy et al. 2020)",
          "[property]") {
    const int64_t T = 5;
    auto full = test::make_attention({.d_model = 8, .heads = 2});
    Rng rng(14);
    const Tensor x = test::random_tensor({2, T, 8}, rng);
    for (const bool causal : {false, true}) {  // non-causal: w ≥ 2(T − 1); causal: w ≥ T
        INFO("causal " << causal);
        CHECK(check_window_equals_full(*full, x, covering_window(T, causal), causal).holds);
        CHECK(check_window_equals_full(*full, x, 2 * T, causal).holds);
        CHECK_FALSE(check_window_equals_full(*full, x, covering_window(T, causal) - 1, causal).holds);
    }
}

TEST_CASE("one-head MHA with identity projections is plain SDPA (Vaswani et al. 2017 §3.2.2 with W = I)",
          "[property]") {
    const int64_t C = 4;
    auto mha = test::make_attention({.d_model = C, .heads = 1});
    auto state = mha->state_dict();
    Tensor identity = Tensor::zeros({C, C}, DType::f64);
    for (int64_t i = 0; i < C; ++i) identity.set({i, i}, 1.0);
    for (auto& [name, tensor] : state)
        tensor = name.ends_with("weight") ? identity : Tensor::zeros({C}, DType::f64);
    mha->load_state_dict(state);
    Rng rng(15);
    const Tensor x = test::random_tensor({2, 3, C}, rng);
    const Tensor expected = scaled_dot_product_attention(x, x, x, {.causal = true});
    CHECK(test::max_relative_difference((*mha)(x, {.causal = true}), expected) < 1e-14);
}

TEST_CASE("the tape's gradients equal the analytic attention backward of docs/math/attention.md", "[property]") {
    const Qkv in = random_qkv(4, 5, 16);
    const double tau = std::sqrt(3.0);
    const Measured backward = check_analytic_backward(
        [&](const Tensor& Q, const Tensor& K, const Tensor& V) { return scaled_dot_product_attention(Q, K, V, {}, tau); },
        in.Q, in.K, in.V, tau);
    INFO(backward.numbers);
    CHECK(backward.holds);
}
