// Linear attention: hand-computed cases, the causal scan against the masked quadratic form,
// causality, non-negative implied weights, padding, and gradchecks of both forms and the fused op.
#include "catch.h"
#include <cmath>

#include "autograd/error.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/masks.h"

using namespace tf;

namespace {

std::vector<Tensor> random_qkv(int64_t T, int64_t S, int64_t D, int64_t E, uint64_t seed, DType dtype = DType::f64) {
    Rng rng(seed);
    return {Tensor::uniform({2, 2, T, D}, -2, 2, rng, dtype), Tensor::uniform({2, 2, S, D}, -2, 2, rng, dtype),
            Tensor::uniform({2, 2, S, E}, -1, 1, rng, dtype)};
}

// The quadratic form the scan avoids: A = φ(Q)φ(K)ᵀ with future keys zeroed, out = A·V / (A·1 + ε).
// Future is masks.h's causal mask: key j is after query i when j > i + (S − T).
Tensor causal_quadratic(const Tensor& Q, const Tensor& K, const Tensor& V) {
    const Tensor future = causal_mask(Q.size(2), K.size(2));
    const Tensor A = masked_fill(matmul(elu_feature_map(Q), elu_feature_map(K), {.transpose_b = true}), future, 0.0);
    return matmul(A, V) / (sum(A, {-1}, true) + 1e-6);
}

}  // namespace

TEST_CASE("linear attention: φ = elu + 1 by hand, and its slope", "[unit]") {
    const Tensor x = test::f64({-1, 0.5, 2}, {3}).set_requires_grad();
    const Tensor phi = elu_feature_map(x);
    test::require_values(phi, {std::exp(-1.0), 1.5, 3});
    Tape::current().backward(sum(phi));
    test::require_values(x.grad(), {std::exp(-1.0), 1, 1});
}

TEST_CASE("linear attention: one query, two keys, by hand, causal sees only the past", "[unit]") {
    // φ(q) = φ(0) = 1;  φ(k) = [φ(0), φ(1)] = [1, 2];  v = [1, 4]
    // non-causal: (1·1·1 + 1·2·4) / (1·1 + 1·2) = 9 / 3 = 3;   causal (T = S = 2): row 0 = v_0 = 1, row 1 = 3
    const Tensor K = test::f64({0, 1}, {1, 1, 2, 1});
    const Tensor V = test::f64({1, 4}, {1, 1, 2, 1});
    test::require_values(linear_attention(test::f64({0}, {1, 1, 1, 1}), K, V), {3}, 1e-6);
    test::require_values(linear_attention(test::f64({0, 0}, {1, 1, 2, 1}), K, V, {.causal = true}), {1, 3}, 1e-6);
    // One query over two keys sits at the last key position (bottom-right): causal sees both keys.
    test::require_values(linear_attention(test::f64({0}, {1, 1, 1, 1}), K, V, {.causal = true}), {3}, 1e-6);
}

TEST_CASE("linear attention: the causal scan equals the masked quadratic form, for S = T and S ≠ T", "[property]") {
    const auto [T, S] = GENERATE(std::make_pair(11, 11), std::make_pair(4, 9), std::make_pair(9, 4));
    INFO("T = " << T << ", S = " << S);
    const std::vector<Tensor> qkv = random_qkv(T, S, 5, 3, 1);
    const Tensor scan = linear_attention(qkv[0], qkv[1], qkv[2], {.causal = true});
    CHECK(test::max_relative_difference(scan, causal_quadratic(qkv[0], qkv[1], qkv[2])) < 1e-12);
}

TEST_CASE("linear attention: causal output at t does not change when inputs after t change", "[property]") {
    const std::vector<Tensor> qkv = random_qkv(9, 9, 4, 3, 2, DType::f32);
    const Tensor before = linear_attention(qkv[0], qkv[1], qkv[2], {.causal = true});
    const int64_t t = 5;
    std::vector<Tensor> changed;
    for (const Tensor& x : qkv) {
        Tensor y = x.clone();
        for (int64_t j = t + 1; j < 9; ++j) y.set({1, 0, j, 0}, 7.0);
        changed.push_back(y);
    }
    const Tensor after = linear_attention(changed[0], changed[1], changed[2], {.causal = true});
    CHECK(test::max_relative_difference(slice(after, 2, 0, t + 1), slice(before, 2, 0, t + 1)) == 0.0);
    CHECK(test::max_relative_difference(slice(after, 2, t + 1, 9), slice(before, 2, t + 1, 9)) > 1e-3);
}

TEST_CASE("linear attention: implied weights are non-negative, so outputs stay within the values' range", "[property]") {
    const Tensor x = Tensor::from_data({-80, -30, -1, 0, 1e-3, 30}, {6});
    for (double phi : elu_feature_map(x).to_vector()) CHECK(phi > 0);
    // out_t = Σ_j w_tj v_j with w_tj = φ(q_t)·φ(k_j) / (Σ_j φ(q_t)·φ(k_j) + ε) ≥ 0 summing to ≈ 1
    const std::vector<Tensor> qkv = random_qkv(7, 13, 4, 2, 3);
    for (const bool causal : {false, true}) {
        const std::vector<Tensor> inputs = causal ? random_qkv(13, 13, 4, 2, 4) : qkv;
        const Tensor out = linear_attention(inputs[0], inputs[1], inputs[2], {.causal = causal});
        for (double value : out.to_vector()) CHECK((value >= -1.0 && value <= 1.0));   // the values lie in [−1, 1]
    }
}

TEST_CASE("linear attention: padded keys get no weight and no gradient", "[property]") {
    std::vector<Tensor> qkv = random_qkv(5, 6, 3, 2, 5);
    for (Tensor& x : qkv) x.set_requires_grad();
    const Tensor mask = test::f64({0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1}, {2, 6});
    const Tensor out = linear_attention(qkv[0], qkv[1], qkv[2], {.key_padding_mask = mask});
    Tape::current().backward(sum(out * out));
    const Tensor unpadded_out = linear_attention(qkv[0].detach(), slice(qkv[1].detach(), 2, 0, 4).clone(),
                                                 slice(qkv[2].detach(), 2, 0, 4).clone());
    CHECK(test::max_relative_difference(slice(out.detach(), 0, 0, 1), slice(unpadded_out, 0, 0, 1)) < 1e-12);
    for (int input : {1, 2})
        for (double g : slice(slice(qkv[input].grad(), 0, 0, 1), 2, 4, 6).to_vector()) CHECK(g == 0.0);
}

TEST_CASE("linear attention gradcheck in f64: non-causal with padding, causal, and the fused scan", "[gradcheck]") {
    const Tensor mask = test::f64({0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1}, {2, 6});
    const std::vector<Tensor> cross = random_qkv(5, 6, 3, 2, 6);
    auto result = gradcheck([&](const auto& in) { return linear_attention(in[0], in[1], in[2], {.key_padding_mask = mask}); }, cross);
    INFO(result.message);
    CHECK(result.ok);
    const std::vector<Tensor> self = random_qkv(6, 6, 3, 2, 7);
    result = gradcheck([&](const auto& in) { return linear_attention(in[0], in[1], in[2], {.causal = true, .key_padding_mask = mask}); }, self);
    INFO(result.message);
    CHECK(result.ok);
    result = gradcheck([](const auto& in) { return causal_prefix_attention(in[0], in[1], in[2]); }, self);
    INFO(result.message);
    CHECK(result.ok);
}
