// Op values against hand-computed results, the edge cases each op promises (masked rows, ignored
// targets, eval-mode dropout), and error messages that name the op and both shapes.
#include "catch.h"
#include <cmath>
#include <limits>

#include "autograd/dropout_mask.h"
#include "autograd/error.h"
#include "autograd/kernels/gemm.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"

using namespace tf;
using test::f64;
using test::require_values;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

TEST_CASE("broadcasting arithmetic gives NumPy's values", "[unit]") {
    const Tensor a = f64({1, 2, 3, 4, 5, 6}, {2, 3});
    require_values(a + f64({10, 20, 30}, {3}), {11, 22, 33, 14, 25, 36});
    require_values(a - f64({1, 2}, {2, 1}), {0, 1, 2, 2, 3, 4});
    require_values(a * f64({2}, {1}), {2, 4, 6, 8, 10, 12});
    require_values(a / 2.0, {0.5, 1, 1.5, 2, 2.5, 3});
    require_values(1.0 - a, {0, -1, -2, -3, -4, -5});
    require_values(6.0 / a, {6, 3, 2, 1.5, 1.2, 1});
    CHECK((f64({1, 2}, {2, 1}) + f64({1, 2, 3}, {3})).shape() == Shape{2, 3});
}

TEST_CASE("shape errors name the op and both shapes", "[unit]") {
    REQUIRE_THROWS_WITH(matmul(Tensor::zeros({2, 3}), Tensor::zeros({4, 5})),
                        "matmul: (2,3) x (4,5): inner dimensions 3 and 4 differ");
    REQUIRE_THROWS_WITH(add(Tensor::zeros({2, 3}), Tensor::zeros({4})),
                        Catch::Contains("add: (2,3) and (4)") && Catch::Contains("cannot broadcast"));
    REQUIRE_THROWS_WITH(reshape(Tensor::zeros({2, 3}), {4, 2}), Catch::Contains("reshape: cannot reshape (2,3)"));
    REQUIRE_THROWS_WITH(concat({Tensor::zeros({2, 3}), Tensor::zeros({3, 3})}, 1), Catch::Contains("concat: (2,3)"));
    REQUIRE_THROWS_WITH(slice(Tensor::zeros({2, 3}), 1, 2, 5), Catch::Contains("slice: [2, 5) is out of range"));
    REQUIRE_THROWS_WITH(sum(Tensor::zeros({2, 3}), {2}), Catch::Contains("sum: axis 2 is out of range"));
    REQUIRE_THROWS_WITH(add(Tensor::zeros({2}), Tensor::zeros({2}, DType::f64)), Catch::Contains("dtypes differ"));
    REQUIRE_THROWS_WITH(embedding(Tensor::zeros({4, 2}), IndexTensor({5})), Catch::Contains("index 5 is out of range [0, 4)"));
}

TEST_CASE("elementwise functions match their definitions", "[unit]") {
    require_values(exp(f64({0, 1}, {2})), {1, std::exp(1.0)});
    require_values(log(f64({1, std::exp(2.0)}, {2})), {0, 2});
    require_values(sqrt(f64({4, 9}, {2})), {2, 3});
    require_values(pow(f64({2, 3}, {2}), 3), {8, 27});
    require_values(relu(f64({-1, 0, 2}, {3})), {0, 0, 2});
    require_values(tanh(f64({0, 1}, {2})), {0, std::tanh(1.0)});
    require_values(gelu(f64({0, 1, -1}, {3})), {0, 0.8413447460685429, -0.15865525393145707});
    // sigmoid never overflows: e^1000 would be inf.
    require_values(sigmoid(f64({0, 1000, -1000}, {3})), {0.5, 1, 0});
}

TEST_CASE("reductions over axes, with and without keepdim", "[unit]") {
    const Tensor x = f64({1, 5, 3, 4, 2, 6}, {2, 3});
    require_values(sum(x), {21});
    require_values(sum(x, {0}), {5, 7, 9});
    require_values(sum(x, {-1}, true), {9, 12});
    CHECK(sum(x, {-1}, true).shape() == Shape{2, 1});
    require_values(mean(x, {1}), {3, 4});
    require_values(max(x, {1}), {5, 6});
    require_values(max(x, {0, 1}), {6});
    CHECK(argmax(x).values == std::vector<int64_t>{1, 2});
}

TEST_CASE("matmul multiplies, batches, broadcasts and transposes", "[unit]") {
    const Tensor a = f64({1, 2, 3, 4}, {2, 2});
    const Tensor b = f64({5, 6, 7, 8}, {2, 2});
    require_values(matmul(a, b), {19, 22, 43, 50});
    require_values(matmul(a, b, {true, false}), {26, 30, 38, 44});
    require_values(matmul(a, b, {false, true}), {17, 23, 39, 53});
    const Tensor batch = f64({1, 2, 3, 4, 1, 0, 0, 1}, {2, 2, 2});
    require_values(matmul(batch, b), {19, 22, 43, 50, 5, 6, 7, 8});
    CHECK(matmul(Tensor::zeros({3, 1, 2, 4}), Tensor::zeros({5, 4, 6})).shape() == Shape{3, 5, 2, 6});
}

TEST_CASE("softmax rows sum to 1, and a fully masked row is 0 with no NaN", "[unit]") {
    const Tensor y = softmax(f64({1, 2, 3}, {1, 3}));
    const double total = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    require_values(y, {std::exp(1.0) / total, std::exp(2.0) / total, std::exp(3.0) / total});
    // Large logits must not overflow.
    require_values(softmax(f64({1000, 1000}, {2})), {0.5, 0.5});

    Tape::current().clear();
    Tensor x = f64({1, 2, 3, 4, 5, 6}, {2, 3});
    x.set_requires_grad();
    const Tensor mask = f64({1, 1, 1, 0, 1, 0}, {2, 3});
    const Tensor weights = softmax(masked_fill(x, mask, -kInf));
    require_values(slice(weights, 0, 0, 1), {0, 0, 0});
    require_values(slice(weights, 0, 1, 2), {1 / (1 + std::exp(2.0)), 0, std::exp(2.0) / (1 + std::exp(2.0))});
    Tape::current().backward(sum(weights * f64({1, 2, 3, 4, 5, 6}, {2, 3})));
    for (double g : x.grad().to_vector()) CHECK(std::isfinite(g));
    require_values(slice(x.grad(), 0, 0, 1), {0, 0, 0});
    CHECK(x.grad().at({1, 1}) == 0);  // a masked key gets exactly zero gradient
}

TEST_CASE("log_softmax is log of softmax, 0 on a fully masked row", "[unit]") {
    const Tensor x = f64({0.5, -1, 2, -kInf, -kInf, -kInf}, {2, 3});
    const Tensor y = log_softmax(x);
    const Tensor reference = log(softmax(slice(x, 0, 0, 1)));
    require_values(slice(y, 0, 0, 1), reference.to_vector(), 1e-12);
    require_values(slice(y, 0, 1, 2), {0, 0, 0});
}

TEST_CASE("layer_norm normalises each row to mean 0, variance 1, then scales and shifts", "[unit]") {
    const Tensor x = f64({1, 2, 3, 4, 10, 20, 30, 40}, {2, 4});
    const Tensor y = layer_norm(x, Tensor::ones({4}, DType::f64), Tensor::zeros({4}, DType::f64), 0.0);
    const double s = 1 / std::sqrt(1.25);  // var of {1,2,3,4} is 1.25
    require_values(y, {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s, -1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s}, 1e-12);
    // y = γ ⊙ x̂ + β per channel: a γ or β read at the wrong channel changes these
    const Tensor scaled = layer_norm(x, f64({1, 2, 3, 4}, {4}), f64({0.5, -1, 0, 2}, {4}), 0.0);
    require_values(slice(scaled, 0, 0, 1), {-1.5 * s + 0.5, -1.0 * s - 1, 1.5 * s, 6 * s + 2}, 1e-12);
    REQUIRE_THROWS_WITH(layer_norm(x, Tensor::ones({3}, DType::f64), Tensor::zeros({4}, DType::f64)),
                        Catch::Contains("layer_norm: input (2,4) needs gamma and beta of shape (4)"));
}

TEST_CASE("add_layer_norm is layer_norm of the sum in one pass: the same bits, forward and backward", "[unit]") {
    // f32, odd widths and row counts (vector tails; one thread and many): values and the gradients
    // of x, r, γ and β equal those of the composed add then layer_norm, bit for bit.
    const auto [rows, cols] = GENERATE(std::make_pair(3, 5), std::make_pair(65, 17), std::make_pair(2100, 128));
    INFO(rows << " rows of " << cols);
    Rng rng(rows + cols);
    const std::vector<Tensor> inputs{Tensor::uniform({rows, cols}, -2, 2, rng), Tensor::uniform({rows, cols}, -1, 1, rng),
                                     Tensor::uniform({cols}, 0.5, 1.5, rng), Tensor::uniform({cols}, -1, 1, rng)};
    const Tensor seed = Tensor::uniform({rows, cols}, -1, 1, rng);
    const auto outcome = [&](bool fused) {
        std::vector<Tensor> leaves;
        for (const Tensor& x : inputs) leaves.push_back(x.clone().set_requires_grad());
        Tape::current().clear();
        const Tensor y = fused ? add_layer_norm(leaves[0], leaves[1], leaves[2], leaves[3])
                               : layer_norm(leaves[0] + leaves[1], leaves[2], leaves[3]);
        Tape::current().backward(y, seed);
        std::vector<Tensor> results{y};
        for (const Tensor& leaf : leaves) results.push_back(leaf.grad());
        return results;
    };
    const std::vector<Tensor> fused = outcome(true), composed = outcome(false);
    for (std::size_t i = 0; i < fused.size(); ++i) {
        INFO("result " << i << " (0: y, then dx, dr, dγ, dβ)");
        CHECK(fused[i].to_vector() == composed[i].to_vector());
    }
    REQUIRE_THROWS_WITH(add_layer_norm(inputs[0], inputs[2], inputs[2], inputs[3]), Catch::Contains("add_layer_norm") && Catch::Contains("must match"));
}

TEST_CASE("dropout: identity in eval, inverted scaling and a seeded mask in training", "[unit]") {
    const Tensor x = Tensor::ones({10000}, DType::f64);
    Rng rng(3);
    CHECK(dropout(x, 0.5, rng, false).shares_storage(x));
    const auto kept = dropout(x, 0.25, rng, true).to_vector();
    double zeros = 0, total = 0;
    for (double v : kept) {
        CHECK((v == 0 || v == Approx(1 / 0.75)));
        zeros += v == 0;
        total += v;
    }
    CHECK(zeros / 10000 == Approx(0.25).margin(0.02));
    CHECK(total / 10000 == Approx(1.0).margin(0.03));  // E[y] = x
    Rng a(5), b(5);
    CHECK(dropout(x, 0.5, a, true).to_vector() == dropout(x, 0.5, b, true).to_vector());
    REQUIRE_THROWS_WITH(dropout(x, 1.0, rng, true), Catch::Contains("dropout: probability 1"));
}

TEST_CASE("dropout: an example's mask is the same in any batch it is run in, at any padded width", "[unit]") {
    // Gradient accumulation and data parallelism run a batch of 6 as pieces; the pieces, each told
    // where its first example sits, must draw exactly the whole batch's mask.
    const Tensor x = Tensor::ones({6, 5, 4}, DType::f64);
    Rng whole_rng(11);
    const Tensor whole = dropout(x, 0.5, whole_rng, true);
    Tensor pieces[2];
    for (int64_t piece = 0; piece < 2; ++piece) {
        Rng piece_rng(11);   // the same key for the same call
        const BatchRowsScope rows(3 * piece);
        pieces[piece] = dropout(slice(x, 0, 3 * piece, 3 * piece + 3), 0.5, piece_rng, true);
    }
    CHECK(concat({pieces[0], pieces[1]}, 0).to_vector() == whole.to_vector());
    CHECK(batch_first_row() == 0);   // the scope restored it
    // Padded to 7 positions instead of 5: the first 5 positions keep their mask.
    Rng wider_rng(11);
    const Tensor wider = dropout(Tensor::ones({6, 7, 4}, DType::f64), 0.5, wider_rng, true);
    CHECK(slice(wider, 1, 0, 5).to_vector() == whole.to_vector());
    // A different row offset, or the next call, gives another mask.
    Rng shifted_rng(11);
    const BatchRowsScope shifted(1);
    CHECK(dropout(x, 0.5, shifted_rng, true).to_vector() != whole.to_vector());
    CHECK(dropout(x, 0.5, whole_rng, true).to_vector() != whole.to_vector());
}

TEST_CASE("cross_entropy: mean −log p(target), skipping ignored targets", "[unit]") {
    const Tensor logits = f64({1, 2, 3, 1, 1, 1, 0, 0, 5}, {3, 3});
    const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
    const double row0 = lse - 3;              // target 2
    const double row1 = std::log(3.0);        // target 0 of a uniform row
    const IndexTensor targets({2, 0, -100}, {3});
    CHECK(cross_entropy(logits, targets).item() == Approx((row0 + row1) / 2).epsilon(1e-12));
    // Label smoothing ε: loss = (1−ε)·(−log p_t) + ε·mean_v(−log p_v)
    const double eps = 0.1;
    const double smooth0 = (1 - eps) * row0 + eps * (3 * lse - 6) / 3;
    const double smooth1 = (1 - eps) * row1 + eps * row1;
    CHECK(cross_entropy(logits, targets, {-100, eps}).item() == Approx((smooth0 + smooth1) / 2).epsilon(1e-12));
}

TEST_CASE("cross_entropy with every target ignored is 0 with 0 gradient, not NaN", "[unit]") {
    Tape::current().clear();
    Tensor logits = f64({1, 2, 3, 4}, {2, 2});
    logits.set_requires_grad();
    const Tensor loss = cross_entropy(logits, IndexTensor({-100, -100}, {2}));
    CHECK(loss.item() == 0);
    Tape::current().backward(loss);
    require_values(logits.grad(), {0, 0, 0, 0});
    REQUIRE_THROWS_WITH(cross_entropy(logits, IndexTensor({0, 7}, {2})), Catch::Contains("target 7 is out of range"));
    REQUIRE_THROWS_WITH(cross_entropy(logits, IndexTensor({0}, {1})), Catch::Contains("cross_entropy: logits (2,2)"));
}

TEST_CASE("cross_entropy without label smoothing scores a row with −inf (masked) classes, in f32 and f64", "[unit]") {
    const double inf = std::numeric_limits<double>::infinity();
    for (const DType dtype : {DType::f32, DType::f64}) {
        INFO("dtype " << dtype_name(dtype));
        Tape::current().clear();
        Tensor logits = Tensor::from_data({0, -inf, std::log(3.0), 5, 5, -inf}, {2, 3}, dtype);
        logits.set_requires_grad();
        // row 0: p = (1/4, 0, 3/4), target 2;  row 1: p = (1/2, 1/2, 0), target 0
        const Tensor loss = cross_entropy(logits, IndexTensor({2, 0}, {2}));
        CHECK(loss.item() == Approx((std::log(4.0 / 3.0) + std::log(2.0)) / 2).epsilon(1e-6));
        Tape::current().backward(loss);
        // d/dz = (p − onehot) / rows; a masked class has p = 0 and no target, so no gradient
        require_values(logits.grad(), {0.125, 0, -0.125, -0.25, 0.25, 0}, 1e-6);
    }
}

TEST_CASE("edge cases: pow with exponent 0 has gradient 0 at x = 0, a sum over no axes leaves x a leaf, bad reshapes and all -inf cross-entropy rows are errors",
          "[unit]") {
    Tape::current().clear();
    Tensor x = f64({0, 2}, {2});
    x.set_requires_grad();
    Tape::current().backward(sum(pow(x, 0.0)));
    require_values(x.grad(), {0, 0});   // d(x⁰)/dx = 0, not 0·0⁻¹ = NaN

    Tape::current().clear();
    Tensor leaf = f64({1, 2}, {2});
    leaf.set_requires_grad();
    const Tensor same = sum(leaf, {}, true);   // no axes: the values, but a new tensor on the tape
    CHECK(leaf.is_leaf());
    Tape::current().backward(sum(same));
    require_values(leaf.grad(), {1, 1});

    REQUIRE_THROWS_WITH(reshape(f64({0, 1, 2, 3, 4, 5}, {6}), {-2, -3}), Catch::Contains("negative size"));
    const double inf = std::numeric_limits<double>::infinity();
    REQUIRE_THROWS_WITH(cross_entropy(f64({-inf, -inf, 0, 1}, {2, 2}), IndexTensor({1, 0}, {2})),
                        Catch::Contains("row 0 has every logit −inf"));
}

TEST_CASE("shape ops move elements where they belong", "[unit]") {
    const Tensor x = f64({0, 1, 2, 3, 4, 5}, {2, 3});
    require_values(transpose(x, 0, 1), {0, 3, 1, 4, 2, 5});
    require_values(permute(f64({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2}), {2, 0, 1}), {0, 2, 4, 6, 1, 3, 5, 7});
    // Moving only axes of size 1 keeps every element in place (a view); other axes still move.
    const Tensor one_row = f64({0, 1, 2, 3, 4, 5}, {2, 1, 3});
    const Tensor heads_first = permute(one_row, {1, 0, 2});
    CHECK(heads_first.shape() == Shape{1, 2, 3});
    CHECK(heads_first.shares_storage(one_row));
    require_values(heads_first, {0, 1, 2, 3, 4, 5});
    require_values(permute(one_row, {2, 1, 0}), {0, 3, 1, 4, 2, 5});
    require_values(concat({x, f64({9, 9}, {2, 1})}, 1), {0, 1, 2, 9, 3, 4, 5, 9});
    require_values(slice(x, 1, 1, 3), {1, 2, 4, 5});
    const auto parts = split(x, {1, 2}, 1);
    require_values(parts[1], {1, 2, 4, 5});
    CHECK(reshape(x, {-1}).shares_storage(x));
    require_values(index_select(x, 0, IndexTensor({1, 1, 0})), {3, 4, 5, 3, 4, 5, 0, 1, 2});
    require_values(gather(x, IndexTensor({2, 0, 1, 1}, {2, 2})), {2, 0, 4, 4});
    const Tensor table = f64({0, 0, 1, 1, 2, 2}, {3, 2});
    CHECK(embedding(table, IndexTensor({2, 0, 1, 2}, {2, 2})).shape() == Shape{2, 2, 2});
}

TEST_CASE("masked_fill and where select elementwise", "[unit]") {
    const Tensor x = f64({1, 2, 3, 4}, {2, 2});
    require_values(masked_fill(x, f64({0, 1}, {2}), -5), {1, -5, 3, -5});
    require_values(where(f64({1, 0, 0, 1}, {2, 2}), x, f64({9}, {1})), {1, 9, 9, 4});
}

TEST_CASE("the matmul FLOP counter counts 2·M·N·K per product, backward included", "[unit]") {
    Tape::current().clear();
    Tensor a = Tensor::ones({2, 3, 4}, DType::f64).set_requires_grad();
    Tensor b = Tensor::ones({4, 5}, DType::f64).set_requires_grad();
    kernels::reset_gemm_flop_count();
    const Tensor c = matmul(a, b);
    CHECK(kernels::gemm_flop_count() == 2 * 6 * 5 * 4);
    Tape::current().backward(sum(c));
    CHECK(kernels::gemm_flop_count() == 3 * (2 * 6 * 5 * 4));  // dA = dC·Bᵀ and dB = Aᵀ·dC cost as much again each
}
