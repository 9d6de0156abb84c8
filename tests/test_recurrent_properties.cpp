// What recurrent layers promise beyond single steps: padded items behave as if run alone, the
// reverse direction starts at each item's last valid step, outputs are causal, and the gradient
// through a tanh RNN with small recurrent weights vanishes geometrically with distance (Bengio et al.
// 1994; Pascanu et al. 2013).
#include "catch.h"
#include <cmath>

#include "recurrent_test_options.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/recurrent/recurrent_layer.h"

using namespace tf;

namespace {

// x[b, start:end] as a batch of one: (1, end − start, C).
Tensor item_steps(const Tensor& x, int64_t b, int64_t start, int64_t end) {
    return slice(slice(x, 0, b, b + 1), 1, start, end);
}

// Row-major square matrices for the Jacobian products of the vanishing-gradient test.
using Matrix = std::vector<double>;

Matrix multiply(const Matrix& a, const Matrix& b, int64_t n) {
    Matrix c(static_cast<std::size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k)
            for (int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * n + k] * b[k * n + j];
    return c;
}

double frobenius(const Matrix& a) {
    double total = 0;
    for (const double value : a) total += value * value;
    return std::sqrt(total);
}

}  // namespace

TEMPLATE_TEST_CASE("a padded item's outputs and final state equal running it alone, padded steps output 0", "[unit]",
                   RNN, GRU, LSTM) {
    Rng rng(11);
    TestType layer(test::small_recurrent_options(2, true), rng);
    const Tensor x = Tensor::uniform({3, 5, 3}, -1, 1, rng, DType::f64);
    SequenceContext context;
    context.lengths = {5, 2, 4};
    const RecurrentOutput padded = layer.forward_with_state(x, context);
    for (int64_t b = 0; b < 3; ++b) {
        INFO("item " << b);
        const int64_t length = context.lengths[static_cast<std::size_t>(b)];
        const RecurrentOutput alone = layer.forward_with_state(item_steps(x, b, 0, length), {});
        REQUIRE(test::max_relative_difference(item_steps(padded.outputs, b, 0, length), alone.outputs) < 1e-13);
        for (const double value : item_steps(padded.outputs, b, length, 5).to_vector()) REQUIRE(value == 0.0);
        for (std::size_t k = 0; k < alone.final_state.size(); ++k) {
            const RecurrentState& state = padded.final_state[k];
            REQUIRE(test::max_relative_difference(slice(state.h, 0, b, b + 1), alone.final_state[k].h) < 1e-13);
            if (state.c.defined())
                REQUIRE(test::max_relative_difference(slice(state.c, 0, b, b + 1), alone.final_state[k].c) < 1e-13);
        }
    }
    SequenceContext masked;  // the same padding given as a (B, T) mask instead of lengths
    masked.padding_mask = test::f64({0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1}, {3, 5});
    REQUIRE(layer(x, masked).to_vector() == padded.outputs.to_vector());
}

TEMPLATE_TEST_CASE("the reverse direction on a padded item equals the cell run over the reversed valid prefix",
                   "[unit]", RNN, GRU, LSTM) {
    Rng rng(12);
    TestType layer(test::small_recurrent_options(1, true), rng);
    const Tensor x = Tensor::uniform({2, 5, 3}, -1, 1, rng, DType::f64);
    SequenceContext context;
    context.lengths = {5, 3};
    const Tensor outputs = layer(x, context);  // (2, 5, 8): forward half, then reverse half
    const RecurrentCell& reverse = layer.cell(0, RecurrentLayer::Direction::reverse);
    RecurrentState state = reverse.initial_state(1);
    for (int64_t t = 2; t >= 0; --t) {
        state = reverse.step(reshape(item_steps(x, 1, t, t + 1), {1, 3}), state);
        const Tensor produced = reshape(slice(item_steps(outputs, 1, t, t + 1), 2, 4, 8), {1, 4});
        REQUIRE(test::max_relative_difference(produced, state.h) < 1e-13);
    }
}

TEMPLATE_TEST_CASE("causal: the output at step t is unchanged when inputs after t change", "[property]", RNN, GRU,
                   LSTM) {
    Rng rng(13);
    TestType layer(test::small_recurrent_options(2, false), rng);
    const Tensor x = Tensor::uniform({2, 6, 3}, -1, 1, rng, DType::f64);
    const Tensor outputs = layer(x, {});
    for (int64_t t = 0; t + 1 < 6; ++t) {
        const Tensor changed = concat({slice(x, 1, 0, t + 1), Tensor::uniform({2, 5 - t, 3}, -1, 1, rng, DType::f64)}, 1);
        const Tensor changed_outputs = layer(changed, {});
        REQUIRE(slice(changed_outputs, 1, 0, t + 1).to_vector() == slice(outputs, 1, 0, t + 1).to_vector());
        REQUIRE(slice(changed_outputs, 1, t + 1, 6).to_vector() != slice(outputs, 1, t + 1, 6).to_vector());
    }
}

// Pascanu et al. 2013: ∂h_T/∂h_t = Π_{k=t+1..T} ∂h_k/∂h_{k−1},  ∂h_k/∂h_{k−1} = diag(1 − h_k²)·W_hh for tanh.
// Each factor has ‖·‖_F ≤ ‖W_hh‖_F (|1 − h²| ≤ 1), so with ‖W_hh‖_F = 1/2 the Jacobian norm falls by at
// least half per step of distance: it vanishes geometrically in T − t.
TEST_CASE("tanh RNN with small recurrent weights: ‖∂h_T/∂h_t‖ decays geometrically (vanishing gradient)",
          "[property]") {
    const int64_t H = 4, steps = 12;
    Rng rng(14);
    RNNCell cell(3, H, RNNCell::Nonlinearity::tanh, std::nullopt, rng, DType::f64);
    Tensor W_hh = cell.weight_hh();
    const double scale = 0.5 / frobenius(W_hh.to_vector());
    for (int64_t i = 0; i < H * H; ++i) W_hh.data<double>()[i] *= scale;  // ‖W_hh‖_F = 1/2
    const Tensor x = Tensor::uniform({steps, 1, 3}, -2, 2, rng, DType::f64);

    // Row i of every Jacobian ∂h_T/∂h_t from one backward seeded with e_i; the forward is rerun each time.
    std::vector<Matrix> autograd(static_cast<std::size_t>(steps), Matrix(static_cast<std::size_t>(H * H)));
    std::vector<std::vector<double>> h_values(static_cast<std::size_t>(steps + 1));
    for (int64_t i = 0; i < H; ++i) {
        std::vector<Tensor> h = {Tensor::zeros({1, H}, DType::f64).set_requires_grad()};
        for (int64_t k = 0; k < steps; ++k) {
            h.push_back(cell.step(reshape(slice(x, 0, k, k + 1), {1, 3}), {h.back(), Tensor()}).h);
            h.back().retain_grad();
        }
        Tensor seed = Tensor::zeros({1, H}, DType::f64);
        seed.set({0, i}, 1.0);
        Tape::current().backward(h.back(), seed);
        for (int64_t t = 0; t < steps; ++t)
            for (int64_t j = 0; j < H; ++j) autograd[t][i * H + j] = h[t].grad().to_vector()[j];
        for (int64_t k = 0; k <= steps; ++k) h_values[k] = h[k].detach().to_vector();
    }

    Matrix product(static_cast<std::size_t>(H * H), 0.0);  // ∂h_T/∂h_T = I, then × one factor per step back
    for (int64_t i = 0; i < H; ++i) product[i * H + i] = 1.0;
    for (int64_t t = steps - 1; t >= 0; --t) {
        Matrix factor = W_hh.to_vector();  // ∂h_{t+1}/∂h_t = diag(1 − h_{t+1}²)·W_hh
        for (int64_t i = 0; i < H; ++i)
            for (int64_t j = 0; j < H; ++j) factor[i * H + j] *= 1 - h_values[t + 1][i] * h_values[t + 1][i];
        product = multiply(product, factor, H);
        INFO("t = " << t);
        for (int64_t e = 0; e < H * H; ++e) REQUIRE(autograd[t][e] == Approx(product[e]).margin(1e-14));
        // ‖AB‖ ≤ ‖A‖‖B‖ and ‖factor‖ ≤ ‖W_hh‖ = 1/2: each step back at least halves the norm
        const double norm = frobenius(autograd[t]);
        if (t + 1 < steps) REQUIRE(norm <= 0.5 * frobenius(autograd[t + 1]) + 1e-15);
    }
    REQUIRE(frobenius(autograd[0]) < 1e-3);  // 12 steps back: below 0.5¹² ≈ 2.4e-4
}
