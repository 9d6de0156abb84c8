// The graded tests of the course's tasks (course/tasks.tsv, docs/course/) that no other test file
// holds: each is tagged with its task and reads only that task's code, so a student's work on one
// task is graded by its own tests whatever the other tasks' state. The rest of the graded tests
// carry their task's tag where they live (test_attention.cpp, test_recurrent.cpp, …). The
// capstones (A6) are the exception: each trains models on every task it needs.
#include "catch.h"

#include <array>
#include <cmath>
#include <numbers>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/random.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/scaled_dot_product.h"
#include "run_helpers.h"
#include "source_paths.h"
#include "train/run_config.h"
#include "train/trainer.h"

using namespace tf;
using test::f64;
using test::require_values;

namespace {

Tensor random_f64(const Shape& shape, uint64_t seed) {
    Rng rng(seed);
    return Tensor::uniform(shape, -1, 1, rng, DType::f64);
}

// dL/dx of L = Σ w ⊙ f(x), by the tape.
Tensor gradient_of(const std::function<Tensor(const Tensor&)>& f, const Tensor& x_value, const Tensor& w) {
    Tensor x = x_value.clone();
    x.set_requires_grad(true);
    Tape& tape = Tape::current();
    tape.clear();
    tape.backward(sum(f(x) * w));
    return x.grad();
}

}  // namespace

// ── A1.1 softmax's backward ──────────────────────────────────────────────────
TEST_CASE("A1.1 softmax's backward matches central differences in f64, rows of 1 to 7", "[gradcheck][graded][A1.1]") {
    for (const int64_t cols : {1, 2, 7}) {
        INFO(cols << " columns");
        const GradcheckResult result = gradcheck([](const std::vector<Tensor>& in) { return softmax(in[0]); },
                                                 {random_f64({3, cols}, 11)});
        INFO(result.message);
        CHECK(result.ok);
    }
}

TEST_CASE("A1.1 softmax's backward: a hand-worked row, and every row of dx sums to 0", "[unit][graded][A1.1]") {
    // y = softmax(0, ln 3) = (1/4, 3/4); dy = (1, 0): y·dy = 1/4, so dx = y ⊙ (dy − 1/4) = (3/16, −3/16).
    const Tensor x = f64({0, std::log(3.0)}, {1, 2});
    require_values(gradient_of([](const Tensor& v) { return softmax(v); }, x, f64({1, 0}, {1, 2})), {3.0 / 16, -3.0 / 16});
    // softmax is unchanged by adding a constant to a row, so no gradient points along (1, …, 1).
    const Tensor dx = gradient_of([](const Tensor& v) { return softmax(v); }, random_f64({4, 5}, 3), random_f64({4, 5}, 4));
    for (int64_t r = 0; r < 4; ++r) {
        double row = 0;
        for (int64_t c = 0; c < 5; ++c) row += dx.at({r, c});
        CHECK(std::abs(row) < 1e-12);
    }
}

// ── A1.2 GELU's backward ─────────────────────────────────────────────────────
TEST_CASE("A1.2 GELU's backward matches central differences in f64", "[gradcheck][graded][A1.2]") {
    const GradcheckResult result = gradcheck([](const std::vector<Tensor>& in) { return gelu(in[0]); },
                                             {random_f64({4, 6}, 5) * 3.0});
    INFO(result.message);
    CHECK(result.ok);
}

TEST_CASE("A1.2 GELU's derivative by hand: ½ at 0, Φ(1) + φ(1) at 1, → 1 and → 0 far out", "[unit][graded][A1.2]") {
    const double phi_1 = std::exp(-0.5) / std::sqrt(2 * std::numbers::pi), Phi_1 = 0.5 * (1 + std::erf(1 / std::numbers::sqrt2));
    const Tensor x = f64({0, 1, 8, -8}, {4});
    require_values(gradient_of([](const Tensor& v) { return gelu(v); }, x, Tensor::ones({4}, DType::f64)),
                   {0.5, Phi_1 + phi_1, 1, 0}, 1e-10);
}

// ── A1.3 matmul's backward ───────────────────────────────────────────────────
TEST_CASE("A1.3 matmul's backward matches central differences in every layout and with a shared B", "[gradcheck][graded][A1.3]") {
    // op(A) (M, K) · op(B) (K, N), with M, K, N apart and all equal: square matrices keep every
    // gradient's shape right even when a transpose flag is ignored, so only their values show it.
    for (const auto& [M, K, N] : {std::array<int64_t, 3>{3, 4, 5}, std::array<int64_t, 3>{3, 3, 3}})
        for (const bool ta : {false, true})
            for (const bool tb : {false, true}) {
                INFO("(" << M << " × " << K << ")·(" << K << " × " << N << "), transpose_a " << ta << ", transpose_b " << tb);
                const Tensor a = random_f64(ta ? Shape{2, K, M} : Shape{2, M, K}, 6);
                const Tensor b = random_f64(tb ? Shape{2, N, K} : Shape{2, K, N}, 7);
                const GradcheckResult result = gradcheck(
                    [=](const std::vector<Tensor>& in) { return matmul(in[0], in[1], {.transpose_a = ta, .transpose_b = tb}); }, {a, b});
                INFO(result.message);
                CHECK(result.ok);
            }
    // (2, 3, 4)·(4, 5): one B for the whole batch, its gradient summed over the batch.
    const GradcheckResult shared = gradcheck([](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); },
                                             {random_f64({2, 3, 4}, 8), random_f64({4, 5}, 9)});
    INFO(shared.message);
    CHECK(shared.ok);
}

TEST_CASE("A1.3 matmul's backward by hand on 2 × 2 matrices in every layout: dA = dC·Bᵀ and dB = Aᵀ·dC untransposed", "[unit][graded][A1.3]") {
    // C = op(A)·op(B): d op(A) = dC·op(B)ᵀ and d op(B) = op(A)ᵀ·dC, transposed back for an operand that was.
    const Tensor A = f64({1, 2, 3, 4}, {2, 2}), B = f64({5, 6, 7, 8}, {2, 2}), dC = f64({1, 0, 0, 2}, {2, 2});
    struct Layout {
        bool ta, tb;
        std::vector<double> dA, dB;
    };
    const Layout layouts[] = {
        {false, false, {5, 7, 12, 16}, {1, 6, 2, 8}},   // dA = dC·Bᵀ,    dB = Aᵀ·dC
        {true, false, {5, 12, 7, 16}, {1, 4, 3, 8}},    // dA = B·dCᵀ,    dB = A·dC
        {false, true, {5, 6, 14, 16}, {1, 2, 6, 8}},    // dA = dC·B,     dB = dCᵀ·A
        {true, true, {5, 14, 6, 16}, {1, 3, 4, 8}},     // dA = Bᵀ·dCᵀ,   dB = dCᵀ·Aᵀ
    };
    for (const Layout& layout : layouts) {
        INFO("transpose_a " << layout.ta << ", transpose_b " << layout.tb);
        Tensor a = A.clone(), b = B.clone();
        a.set_requires_grad(true), b.set_requires_grad(true);
        Tape::current().clear();
        Tape::current().backward(sum(matmul(a, b, {.transpose_a = layout.ta, .transpose_b = layout.tb}) * dC));
        {
            INFO("dA");
            require_values(a.grad(), layout.dA);
        }
        INFO("dB");
        require_values(b.grad(), layout.dB);
    }
}

// ── A2.1 scaled dot-product attention weights ────────────────────────────────
TEST_CASE("A2.1 attention weights on a 2 × 2 example match the hand computation, τ = √d and τ = 1", "[unit][graded][A2.1]") {
    // Q = K = I: the scores are I/τ and each row's weights are σ(±1/τ) (a two-way softmax).
    const Tensor Q = f64({1, 0, 0, 1}, {2, 2});
    const double w = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0))), w1 = 1.0 / (1.0 + std::exp(-1.0));
    require_values(attention_weights(Q, Q, {}), {w, 1 - w, 1 - w, w});
    require_values(attention_weights(Q, Q, {}, 1.0), {w1, 1 - w1, 1 - w1, w1});
}

TEST_CASE("A2.1 attention weights: rows on the simplex, a hidden key weighs exactly 0, heads and groups apart", "[property][graded][A2.1]") {
    const Tensor Q = random_f64({2, 4, 3, 5}, 12), K = random_f64({2, 2, 6, 5}, 13);   // 4 query heads share 2 key heads
    // A pattern hiding key 5 from every query, and key 0 from query 2 of every head.
    std::vector<double> hidden(3 * 6, 0.0);
    for (int64_t i = 0; i < 3; ++i) hidden[i * 6 + 5] = 1;
    hidden[2 * 6 + 0] = 1;
    const Tensor A = attention_weights(Q, K, {.pattern = Tensor::from_data(hidden, {3, 6})});
    REQUIRE(A.shape() == Shape{2, 4, 3, 6});
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 4; ++h)
            for (int64_t i = 0; i < 3; ++i) {
                double row = 0;
                for (int64_t j = 0; j < 6; ++j) {
                    CHECK(A.at({b, h, i, j}) >= 0);
                    row += A.at({b, h, i, j});
                }
                CHECK(row == Approx(1).epsilon(1e-12));
                CHECK(A.at({b, h, i, 5}) == 0);
            }
    CHECK(A.at({1, 3, 2, 0}) == 0);
    // Query head h reads key head h / 2: head 1 of the group-shared result equals its own computation.
    const Tensor alone = attention_weights(slice(slice(Q, 1, 1, 2), 0, 0, 1), slice(slice(K, 1, 0, 1), 0, 0, 1),
                                           {.pattern = Tensor::from_data(hidden, {3, 6})});
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 6; ++j) CHECK(alone.at({0, 0, i, j}) == Approx(A.at({0, 1, i, j})).epsilon(1e-12));
}

TEST_CASE("A2.1 a hidden key weighs exactly 0 at any scale of the scores, every seen score below −1e9 included", "[property][graded][A2.1]") {
    // A hidden score is −∞, and exp(−∞) = 0 whatever the seen scores are. A large negative stand-in
    // such as −1e9 is not: when every seen score of a row is below it, the hidden keys take the row.
    // Q > 0 and K < 0, so every score Q·Kᵀ/τ lies in [−2, −½]·scale (D = 4, τ = 2).
    Rng rng(14);
    const Tensor Q = Tensor::uniform({2, 3, 4}, 0.5, 1, rng, DType::f64), K = Tensor::uniform({2, 5, 4}, -1, -0.5, rng, DType::f64);
    // Query i sees keys 0 … i + 1 (a pattern, not the causal mask, which is A2.2's): key 4 is hidden from all.
    std::vector<double> hidden(3 * 5, 0.0);
    for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = i + 2; j < 5; ++j) hidden[i * 5 + j] = 1;
    for (const double scale : {1.0, 1e6, 1e10, 1e12}) {
        INFO("scores in [−2, −½]·" << scale);
        const Tensor A = attention_weights(Q * scale, K, {.pattern = Tensor::from_data(hidden, {3, 5})});
        REQUIRE(A.shape() == Shape{2, 3, 5});
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t i = 0; i < 3; ++i) {
                double row = 0;
                for (int64_t j = 0; j < 5; ++j) {
                    row += A.at({b, i, j});
                    INFO("batch " << b << ", query " << i << ", key " << j);
                    if (j > i + 1) CHECK(A.at({b, i, j}) == 0);
                }
                INFO("batch " << b << ", query " << i << ": the row's sum");
                CHECK(row == Approx(1).epsilon(1e-12));
            }
    }
}

// ── A6 capstones: models trained on the student's own code ──────────────────
namespace {

// A run of configs/<name>.json with `overrides`, on one thread, evaluated once at its end:
// its validation token accuracy.
double validation_accuracy(const std::string& name, std::vector<std::string> overrides) {
    overrides.insert(overrides.begin(), {"threads=1", "train.eval_every=0", "train.checkpoint_every=0"});
    const test::TempDir dir("tapeformer-capstone");
    const train::RunConfig config = train::load_run_config(std::string(TF_SOURCE_DIR) + "/configs/" + name + ".json", overrides);
    return train::train(config, {.run_dir = dir.path(), .quiet = true}).valid.token_accuracy;
}

}  // namespace

TEST_CASE("A6.1 the copy transformer, on your backwards, attention and masks, reaches 99% validation token accuracy in 300 steps",
          "[integration][graded][A6.1]") {
    // Its feed-forward layers on GELU rather than the config's ReLU, so that every A1 backward trains it.
    const double accuracy = validation_accuracy("copy_transformer", {"train.max_steps=300", "optimizer.schedule.warmup_steps=50",
                                                                     "model.activation=gelu"});
    INFO("validation token accuracy " << accuracy);
    CHECK(accuracy >= 0.99);
}

TEST_CASE("A6.2 on recall, your GRU with your additive attention beats your GRU alone by a quarter of the tokens, on each of 3 seeds",
          "[integration][graded][A6.2]") {
    // configs/recall_gru.json made small: 4 keys among 12 to 20 symbols, 200 steps. A GRU alone must
    // carry the pairs in its state to the end and recalls about 27%; with attention it looks them up (≈ 100%).
    const std::vector<std::string> small = {"model.hidden_size=32", "model.embedding_size=16", "data.min_length=12",
                                            "data.max_length=20", "data.keys=4", "data.train_size=3000", "train.max_steps=200"};
    for (const int seed : {1, 2, 3}) {
        std::vector<std::string> gru = small, attention = small;
        gru.push_back("seed=" + std::to_string(seed));
        attention.push_back("seed=" + std::to_string(seed));
        attention.push_back("model.attention=additive");
        const double alone = validation_accuracy("recall_gru", gru), attending = validation_accuracy("recall_gru", attention);
        INFO("seed " << seed << ": validation token accuracy " << alone << " alone, " << attending << " with attention");
        CHECK(attending - alone >= 0.25);
    }
}
