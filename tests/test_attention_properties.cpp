// What the math of attention promises (docs/math/attention.md, docs/math/theory.md), checked on our
// attention: weights on the simplex, masked keys with exactly zero weight and gradient, convex hull,
// permutation equivariance, causality, temperature limits, the √d_k scaling, parameter count,
// GQA/window/identity equivalences, the analytic backward.
#include "catch.h"
#include <algorithm>
#include <cmath>

#include "attention_helpers.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/scaled_dot_product.h"

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

// Rows t of x (B, T, C) listed in `order`: out[:, t] = x[:, order[t]].
Tensor permute_rows(const Tensor& x, const std::vector<int64_t>& order) {
    return index_select(x, 1, IndexTensor(order));
}

// A sinusoidal position table (Vaswani et al. 2017 §3.5), (1, T, C), added to the input in the test below.
Tensor sinusoidal_positions(int64_t T, int64_t C) {
    Tensor table({1, T, C}, DType::f64);
    for (int64_t pos = 0; pos < T; ++pos)
        for (int64_t i = 0; i < C; ++i) {
            const double angle = pos / std::pow(10000.0, static_cast<double>(i - i % 2) / static_cast<double>(C));
            table.set({0, pos, i}, i % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return table;
}

}  // namespace

TEST_CASE("weights lie on the simplex and masked keys get exactly zero weight (docs/math/theory.md §1)", "[property]") {
    const Qkv in = random_qkv(4, 5, 1);
    const Tensor padding = test::padding_mask(5, {0, 2});
    Tensor A;
    scaled_dot_product_attention(in.Q, in.K, in.V, {.causal = true, .key_padding = padding}, std::nullopt, &A);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < 4; ++t) {
                double row_sum = 0;
                for (int64_t s = 0; s < 5; ++s) {
                    const double w = A.at({b, h, t, s});
                    const bool hidden = s > t + 1 || padding.at({b, s}) != 0;  // causal offset S − T = 1
                    CHECK(w >= 0.0);
                    if (hidden) CHECK(w == 0.0);
                    row_sum += w;
                }
                CHECK(row_sum == Approx(1.0).epsilon(1e-14));
            }
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
                    double combination = 0, low = INFINITY, high = -INFINITY;
                    for (int64_t s = 0; s < 4; ++s) {
                        const double v = in.V.at({b, h, s, d});
                        combination += A.at({b, h, t, s}) * v;
                        if (s <= t) low = std::min(low, v), high = std::max(high, v);  // the keys t can see
                    }
                    const double o = out.at({b, h, t, d});
                    CHECK(o == Approx(combination).epsilon(1e-13).margin(1e-13));
                    CHECK(o >= low - 1e-13);
                    CHECK(o <= high + 1e-13);
                }
}

TEST_CASE("self-attention without positions is permutation equivariant, positions break it (docs/math/theory.md §2)",
          "[property]") {
    auto mha = test::make_attention({.d_model = 8, .heads = 2});
    test::randomize_parameters(*mha, 5);
    Rng rng(6);
    const Tensor x = test::random_tensor({2, 5, 8}, rng);
    const std::vector<int64_t> order = {3, 0, 4, 1, 2};
    const Tensor permuted_then_attended = (*mha)(permute_rows(x, order), {});
    const Tensor attended_then_permuted = permute_rows((*mha)(x, {}), order);
    CHECK(test::max_relative_difference(permuted_then_attended, attended_then_permuted) < 1e-12);

    const Tensor P = sinusoidal_positions(5, 8);
    const Tensor with_positions = (*mha)(permute_rows(x, order) + P, {});
    CHECK(test::max_relative_difference(with_positions, permute_rows((*mha)(x + P, {}), order)) > 1e-3);
}

TEST_CASE("causal SDPA and MHA: output at t is bit-identical when inputs after t change (Vaswani et al. 2017 §3.2.3)",
          "[property]") {
    const int64_t T = 6, t = 2;
    Qkv in = random_qkv(T, T, 7, DType::f32);
    auto mha = test::make_attention({.d_model = 8, .heads = 2, .kv_heads = 1}, 8, DType::f32);
    Rng rng(9);
    const Tensor x = test::random_tensor({2, T, 8}, rng, DType::f32);
    const Tensor sdpa_before = scaled_dot_product_attention(in.Q, in.K, in.V, {.causal = true});
    const Tensor mha_before = (*mha)(x, {.causal = true});
    Qkv changed{in.Q.clone(), in.K.clone(), in.V.clone()};
    Tensor x_changed = x.clone();
    for (int64_t s = t + 1; s < T; ++s) {
        for (int64_t d = 0; d < 3; ++d) changed.Q.set({1, 0, s, d}, 9.0), changed.K.set({0, 1, s, d}, -7.0);
        for (int64_t d = 0; d < 4; ++d) changed.V.set({1, 1, s, d}, 5.0);
        for (int64_t c = 0; c < 8; ++c) x_changed.set({0, s, c}, 3.0), x_changed.set({1, s, c}, -3.0);
    }
    const Tensor sdpa_after = scaled_dot_product_attention(changed.Q, changed.K, changed.V, {.causal = true});
    const Tensor mha_after = (*mha)(x_changed, {.causal = true});
    const Tensor sdpa_prefix = slice(sdpa_before, 2, 0, t + 1), mha_prefix = slice(mha_before, 1, 0, t + 1);
    CHECK(slice(sdpa_after, 2, 0, t + 1).to_vector() == sdpa_prefix.to_vector());
    CHECK(slice(mha_after, 1, 0, t + 1).to_vector() == mha_prefix.to_vector());
    CHECK(slice(mha_after, 1, t + 1, T).to_vector() != slice(mha_before, 1, t + 1, T).to_vector());
}

TEST_CASE("temperature limits: τ→0 gives the argmax one-hot, τ→∞ uniform weights (docs/math/theory.md §3)",
          "[property]") {
    const Qkv in = random_qkv(4, 5, 10);
    Tensor cold, hot;
    scaled_dot_product_attention(in.Q, in.K, in.V, {}, 1e-4, &cold);
    scaled_dot_product_attention(in.Q, in.K, in.V, {}, 1e7, &hot);
    const Tensor scores = matmul(in.Q, in.K, {.transpose_b = true});  // (2, 2, 4, 5)
    const IndexTensor best = argmax(scores);
    for (int64_t row = 0; row < best.numel(); ++row)
        for (int64_t s = 0; s < 5; ++s) {
            const double expected = s == best.values[static_cast<std::size_t>(row)] ? 1.0 : 0.0;
            CHECK(cold.data<double>()[row * 5 + s] == Approx(expected).margin(1e-12));
            CHECK(hot.data<double>()[row * 5 + s] == Approx(0.2).margin(1e-6));
        }
}

TEST_CASE("Var(q·k) ≈ d_k, and ≈ 1 after dividing by √d_k (Vaswani et al. 2017 §3.2.1, footnote 4)", "[property]") {
    // N = 50000 pairs with d_k = 64: q·k has kurtosis 3 + 6/d_k, so the sample variance's relative
    // standard error is √((2 + 6/d_k)/N) ≈ 0.65%; 4% is a 6σ tolerance. The mean's standard error is
    // √(Var/N) (0.036 unscaled, 0.0045 scaled); we allow 6 of them.
    const int64_t N = 50000, d_k = 64;
    Rng rng(11);
    const Tensor q = test::random_tensor({N, d_k}, rng), k = test::random_tensor({N, d_k}, rng);
    for (const double scale : {1.0, 1.0 / std::sqrt(static_cast<double>(d_k))}) {
        const Tensor dots = sum(q * k, {-1}) * scale;  // (N)
        const double m = mean(dots).item();
        const double variance = mean(pow(dots - m, 2.0)).item() * N / (N - 1);
        const double expected = scale == 1.0 ? static_cast<double>(d_k) : 1.0;
        CHECK(std::abs(m) < 6 * std::sqrt(expected / N));
        CHECK(variance == Approx(expected).epsilon(0.04));
    }
}

TEST_CASE("multi-head attention has 4·d² + 4·d parameters, whatever the head count (docs/math/attention.md)",
          "[property]") {
    for (const int64_t d : {8, 12})
        for (const int64_t heads : {1, 2, 4}) {
            INFO("d = " << d << ", heads = " << heads);
            CHECK(test::make_attention({.d_model = d, .heads = heads})->parameter_count() == 4 * d * d + 4 * d);
        }
}

TEST_CASE("GQA and MQA equal plain MHA whose K/V heads repeat the group's shared head (Ainslie et al. 2023)",
          "[property]") {
    const int64_t C = 8, H = 4, D = C / H;
    Rng rng(13);
    const Tensor x = test::random_tensor({2, 5, C}, rng);
    const SequenceContext context{.padding_mask = test::padding_mask(5, {0, 2}), .causal = true};
    for (const int64_t kv_heads : {1, 2}) {  // 1 kv head is multi-query attention
        INFO("kv_heads = " << kv_heads);
        const int64_t G = H / kv_heads;
        auto gqa = test::make_attention({.d_model = C, .heads = H, .kv_heads = kv_heads});
        test::randomize_parameters(*gqa, 12);
        auto mha = test::make_attention({.d_model = C, .heads = H});
        auto state = gqa->state_dict();
        for (const char* proj : {"k_proj", "v_proj"}) {
            // Query head h reads kv head h / G: repeat each kv head's D rows G times.
            std::vector<int64_t> rows;
            for (int64_t h = 0; h < H; ++h)
                for (int64_t r = 0; r < D; ++r) rows.push_back((h / G) * D + r);
            const std::string name = proj;
            state[name + ".weight"] = index_select(state[name + ".weight"], 0, IndexTensor(rows));
            state[name + ".bias"] = index_select(state[name + ".bias"], 0, IndexTensor(rows));
        }
        mha->load_state_dict(state);
        CHECK(test::max_relative_difference((*gqa)(x, context), (*mha)(x, context)) < 1e-13);
    }
}

TEST_CASE("a sliding window of width ≥ 2T equals full attention (Beltagy et al. 2020)", "[property]") {
    const int64_t T = 5;
    auto full = test::make_attention({.d_model = 8, .heads = 2});
    auto windowed = test::make_attention({.d_model = 8, .heads = 2, .pattern = AttentionPattern::sliding_window, .window = 2 * T});
    auto narrow = test::make_attention({.d_model = 8, .heads = 2, .pattern = AttentionPattern::sliding_window, .window = 2});
    windowed->load_state_dict(full->state_dict());
    narrow->load_state_dict(full->state_dict());
    Rng rng(14);
    const Tensor x = test::random_tensor({2, T, 8}, rng);
    CHECK((*windowed)(x, {}).to_vector() == (*full)(x, {}).to_vector());
    CHECK(test::max_relative_difference((*narrow)(x, {}), (*full)(x, {})) > 1e-6);
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
    Qkv in = random_qkv(4, 5, 16);
    for (Tensor* t : {&in.Q, &in.K, &in.V}) t->set_requires_grad();
    Tensor A;
    const Tensor O = scaled_dot_product_attention(in.Q, in.K, in.V, {}, std::nullopt, &A);
    Rng rng(17);
    const Tensor dO = test::random_tensor(O.shape(), rng);
    Tape::current().backward(O, dO);
    NoGradGuard no_grad;
    const double root_d = std::sqrt(3.0);
    const Tensor dV = matmul(A, dO, {.transpose_a = true});                        // Aᵀ dO
    const Tensor dA = matmul(dO, in.V, {.transpose_b = true});                     // dO Vᵀ
    const Tensor dS = A * (dA - sum(A * dA, {-1}, /*keepdim=*/true));               // A ⊙ (dA − rowsum(A ⊙ dA))
    const Tensor dQ = matmul(dS, in.K) / root_d;                                    // dS K / √d
    const Tensor dK = matmul(dS, in.Q, {.transpose_a = true}) / root_d;             // dSᵀ Q / √d
    CHECK(test::max_relative_difference(in.Q.grad(), dQ) < 1e-13);
    CHECK(test::max_relative_difference(in.K.grad(), dK) < 1e-13);
    CHECK(test::max_relative_difference(in.V.grad(), dV) < 1e-13);
}
