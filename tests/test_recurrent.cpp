// RNN, GRU and LSTM cells and unrolled layers: hand-computed steps, PyTorch names and shapes,
// f64 gradchecks w.r.t. inputs, states and every parameter, the config factory and its errors.
#include <algorithm>
#include "catch.h"
#include <cmath>

#include "recurrent_test_options.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/recurrent/recurrent_layer.h"
#include "module_gradcheck.h"
#include "layers/builtin_layers.h"

using namespace tf;
using tf::test::f64;

namespace {

// Sets every parameter of a cell with I = H = 1 from its stacked gate values.
void set_cell(RecurrentCell& cell, const std::vector<double>& w_ih, const std::vector<double>& w_hh,
              const std::vector<double>& b_ih, const std::vector<double>& b_hh) {
    const auto rows = static_cast<int64_t>(w_ih.size());
    cell.load_state_dict({{"weight_ih", f64(w_ih, {rows, 1})}, {"weight_hh", f64(w_hh, {rows, 1})},
                          {"bias_ih", f64(b_ih, {rows})}, {"bias_hh", f64(b_hh, {rows})}});
}

// Every output of a layer run in one flat tensor: outputs, then each final h (and c).
Tensor flatten(const RecurrentOutput& result) {
    std::vector<Tensor> parts = {reshape(result.outputs, {-1})};
    for (const RecurrentState& state : result.final_state) {
        parts.push_back(reshape(state.h, {-1}));
        if (state.c.defined()) parts.push_back(reshape(state.c, {-1}));
    }
    return concat(parts, 0);
}

void gradcheck_cell(const RecurrentCell& cell) {
    Rng rng(7);
    const Tensor x = Tensor::uniform({2, 3}, -1, 1, rng, DType::f64);
    const Tensor h = Tensor::uniform({2, 4}, -1, 1, rng, DType::f64);
    const Tensor c = Tensor::uniform({2, 4}, -1, 1, rng, DType::f64);
    std::vector<Tensor> inputs = {x, h};
    if (cell.has_cell_state()) inputs.push_back(c);
    test::gradcheck_inputs_and_parameters(cell, inputs, [&cell](const std::vector<Tensor>& in) {
        const RecurrentState next = cell.step(in[0], {in[1], cell.has_cell_state() ? in[2] : Tensor()});
        return next.c.defined() ? concat({next.h, next.c}, 1) : next.h;
    });
}

}  // namespace

TEST_CASE("RNNCell computes act(W_ih x + b_ih + W_hh h + b_hh)", "[unit]") {
    Rng rng(1);
    RNNCell tanh_cell(1, 1, RNNCell::Nonlinearity::tanh, std::nullopt, rng, DType::f64);
    RNNCell relu_cell(1, 1, RNNCell::Nonlinearity::relu, std::nullopt, rng, DType::f64);
    for (RNNCell* cell : {&tanh_cell, &relu_cell}) set_cell(*cell, {0.5}, {-0.25}, {0.1}, {0.2});
    // x = 1, h = 0.5: pre-activation 0.5 + 0.1 − 0.125 + 0.2 = 0.675
    const RecurrentState state{f64({0.5}, {1, 1}), Tensor()};
    test::require_values(tanh_cell.step(f64({1.0}, {1, 1}), state).h, {std::tanh(0.675)});
    test::require_values(relu_cell.step(f64({1.0}, {1, 1}), state).h, {0.675});
    // x = −2: pre-activation −1 + 0.1 − 0.125 + 0.2 = −0.825 < 0, so relu gives 0
    test::require_values(relu_cell.step(f64({-2.0}, {1, 1}), state).h, {0.0});
}

TEST_CASE("GRUCell follows PyTorch's equations, r inside the hidden term with its bias", "[unit][graded][A3.1]") {
    Rng rng(1);
    GRUCell cell(1, 1, std::nullopt, rng, DType::f64);
    // gate rows r, z, n
    set_cell(cell, {0.5, -0.5, 1.0}, {0.25, 0.5, -1.0}, {0.0, 0.1, 0.2}, {0.1, 0.0, -0.3});
    // x = 1, h = 0.5:
    //   r  = σ(0.5 + 0 + 0.125 + 0.1)          = σ(0.725)  = 0.67370709945
    //   z  = σ(−0.5 + 0.1 + 0.25 + 0)          = σ(−0.15)  = 0.46257015466
    //   n  = tanh(1 + 0.2 + r·(−0.5 − 0.3))    = tanh(0.66103432) = 0.57905133714
    //   h' = (1 − z)·n + z·h                   = 0.54248454789
    const RecurrentState next = cell.step(f64({1.0}, {1, 1}), {f64({0.5}, {1, 1}), Tensor()});
    test::require_values(next.h, {0.5424845478941259}, 1e-12);
    REQUIRE_FALSE(next.c.defined());
}

TEST_CASE("GRUCell: the new state stays in (−1, 1) from a state there, an update gate held open keeps h, one held shut gives n", "[property][graded][A3.1]") {
    Rng rng(4);
    GRUCell cell(3, 5, std::nullopt, rng, DType::f64);
    const Tensor x = Tensor::uniform({2, 3}, -4, 4, rng, DType::f64), h = Tensor::uniform({2, 5}, -1, 1, rng, DType::f64);
    // h' = (1 − z)·n + z·h with z in (0, 1) and n = tanh(…) in (−1, 1): a mix of two numbers in (−1, 1).
    const Tensor next = cell.step(x, {h, Tensor()}).h;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t j = 0; j < 5; ++j) CHECK(std::abs(next.at({b, j})) < 1);
    // The update gate's input bias (rows H … 2H − 1, gates in the order r, z, n) at +40: z = σ(≥ 30)
    // is 1 to within 1e-13, so h' = h.
    auto parameters = cell.state_dict();
    Tensor bias = parameters.at("bias_ih").clone();
    for (int64_t j = 5; j < 10; ++j) bias.set({j}, 40.0);
    parameters["bias_ih"] = bias;
    cell.load_state_dict(parameters);
    {
        INFO("update gate held open: h' = h");
        test::require_values(cell.step(x, {h, Tensor()}).h, h.to_vector(), 1e-12);
    }
    // Held shut instead, the bias at −40 (z = σ(≤ −30) is 0 to within 1e-13), with W_hh = 0 and b_hh = 0:
    // h' = n = tanh(W_in x + b_in) (rows 2H … 3H − 1), the candidate from x alone, whatever h was.
    for (int64_t j = 5; j < 10; ++j) bias.set({j}, -40.0);
    parameters["bias_ih"] = bias;
    parameters["weight_hh"] = Tensor::zeros({15, 5}, DType::f64);
    parameters["bias_hh"] = Tensor::zeros({15}, DType::f64);
    cell.load_state_dict(parameters);
    const Tensor W_ih = parameters.at("weight_ih");
    std::vector<double> candidate;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t j = 0; j < 5; ++j) {
            double pre_activation = bias.at({10 + j});
            for (int64_t i = 0; i < 3; ++i) pre_activation += W_ih.at({10 + j, i}) * x.at({b, i});
            candidate.push_back(std::tanh(pre_activation));
        }
    INFO("update gate held shut, W_hh = 0, b_hh = 0: h' = n = tanh(W_in x + b_in)");
    test::require_values(cell.step(x, {h, Tensor()}).h, candidate, 1e-12);
}

TEST_CASE("LSTMCell follows the i, f, g, o equations", "[unit]") {
    Rng rng(1);
    LSTMCell cell(1, 1, std::nullopt, rng, DType::f64);
    // gate rows i, f, g, o
    set_cell(cell, {0.5, -0.25, 1.0, 0.75}, {0.1, 0.2, -0.5, 0.3}, {0.0, 0.5, 0.0, -0.1}, {0.1, 0.0, 0.2, 0.0});
    // x = 2, h = −0.5, c = 0.25:
    //   i = σ(1 − 0.05 + 0.1)        = 0.74077489918     f = σ(−0.5 − 0.1 + 0.5)   = 0.47502081252
    //   g = tanh(2 + 0.25 + 0.2)     = 0.98521691731     o = σ(1.5 − 0.15 − 0.1)   = 0.77729986117
    //   c' = f·c + i·g = 0.84857916572                    h' = o·tanh(c') = 0.53659066486
    const RecurrentState next = cell.step(f64({2.0}, {1, 1}), {f64({-0.5}, {1, 1}), f64({0.25}, {1, 1})});
    test::require_values(next.c, {0.8485791657241966}, 1e-12);
    test::require_values(next.h, {0.536590664859172}, 1e-12);
}

TEST_CASE("cell gradients match finite differences (input, state, every parameter)", "[gradcheck]") {
    Rng rng(3);
    gradcheck_cell(RNNCell(3, 4, RNNCell::Nonlinearity::tanh, std::nullopt, rng, DType::f64));
    gradcheck_cell(RNNCell(3, 4, RNNCell::Nonlinearity::relu, std::nullopt, rng, DType::f64));
    gradcheck_cell(GRUCell(3, 4, std::nullopt, rng, DType::f64));
    gradcheck_cell(LSTMCell(3, 4, std::nullopt, rng, DType::f64));
}

TEMPLATE_TEST_CASE("2-layer bidirectional recurrent layer over a padded batch: gradients", "[gradcheck]", RNN, GRU,
                   LSTM) {
    Rng rng(5);
    TestType layer(test::small_recurrent_options(2, true), rng);
    const Tensor x = Tensor::uniform({2, 3, 3}, -1, 1, rng, DType::f64);
    const Tensor h0 = Tensor::uniform({4, 2, 4}, -0.5, 0.5, rng, DType::f64);  // (layers·dirs, B, H)
    const Tensor c0 = Tensor::uniform({4, 2, 4}, -0.5, 0.5, rng, DType::f64);
    const bool lstm = layer.cell(0).has_cell_state();
    std::vector<Tensor> inputs = {x, h0};
    if (lstm) inputs.push_back(c0);
    SequenceContext context;
    context.lengths = {3, 2};
    test::gradcheck_inputs_and_parameters(layer, inputs, [&](const std::vector<Tensor>& in) {
        std::vector<RecurrentState> initial;
        for (int64_t k = 0; k < 4; ++k)
            initial.push_back({reshape(slice(in[1], 0, k, k + 1), {2, 4}),
                               lstm ? reshape(slice(in[2], 0, k, k + 1), {2, 4}) : Tensor()});
        return flatten(layer.forward_with_state(in[0], context, initial));
    });
}

TEST_CASE("parameter names and shapes match PyTorch's nn.GRU / nn.LSTM / nn.RNNCell", "[unit]") {
    Rng rng(1);
    const GRU gru(test::small_recurrent_options(2, true), rng);
    std::vector<std::pair<std::string, Shape>> expected;
    for (const std::string layer : {"_l0", "_l1"}) {
        for (const std::string direction : {"", "_reverse"}) {
            const int64_t input_size = layer == "_l0" ? 3 : 8;
            expected.emplace_back("weight_ih" + layer + direction, Shape{12, input_size});
            expected.emplace_back("weight_hh" + layer + direction, Shape{12, 4});
            expected.emplace_back("bias_ih" + layer + direction, Shape{12});
            expected.emplace_back("bias_hh" + layer + direction, Shape{12});
        }
    }
    const auto named = gru.named_parameters();
    REQUIRE(named.size() == expected.size());
    for (std::size_t k = 0; k < named.size(); ++k) {
        CHECK(named[k].first == expected[k].first);
        CHECK(named[k].second.shape() == expected[k].second);
    }
    const LSTM lstm(test::small_recurrent_options(1, false), rng);
    REQUIRE(lstm.state_dict().at("weight_ih_l0").shape() == Shape{16, 3});
    REQUIRE(lstm.state_dict().at("weight_hh_l0").shape() == Shape{16, 4});
    const RNNCell cell(3, 4, RNNCell::Nonlinearity::tanh, std::nullopt, rng);
    REQUIRE(cell.state_dict().at("weight_ih").shape() == Shape{4, 3});
    REQUIRE(cell.state_dict().at("bias_hh").shape() == Shape{4});
}

TEST_CASE("recurrent init: U(−1/√H, 1/√H) by default, an InitScheme on request", "[unit]") {
    Rng rng(2);
    RecurrentOptions options = test::small_recurrent_options(1, false);
    options.hidden_size = 16;
    const LSTM pytorch_like(options, rng);
    double largest = 0;
    for (const auto& [name, tensor] : pytorch_like.named_parameters())
        for (const double value : tensor.to_vector()) largest = std::max(largest, std::abs(value));
    REQUIRE(largest <= 0.25);  // 1/√16
    REQUIRE(largest > 0.2);    // and it does use the range
    options.init = InitScheme{InitKind::ones, 0.0};
    const LSTM scheme(options, rng);
    REQUIRE(scheme.state_dict().at("weight_hh_l0").to_vector() == std::vector<double>(16 * 4 * 16, 1.0));
    REQUIRE(scheme.state_dict().at("bias_ih_l0").to_vector() == std::vector<double>(4 * 16, 0.0));
}

TEST_CASE("a decoder stepping the cell from the encoder's final state equals the unrolled layer", "[unit]") {
    Rng rng(4);
    const RecurrentOptions options = test::small_recurrent_options(1, false);
    LSTM encoder(options, rng), decoder(options, rng);
    const Tensor source = Tensor::uniform({2, 5, 3}, -1, 1, rng, DType::f64);
    const Tensor target = Tensor::uniform({2, 3, 3}, -1, 1, rng, DType::f64);
    const RecurrentOutput encoded = encoder.forward_with_state(source, {});
    const RecurrentOutput unrolled = decoder.forward_with_state(target, {}, encoded.final_state);
    RecurrentState state = encoded.final_state.front();
    for (int64_t t = 0; t < 3; ++t) {
        state = decoder.cell(0).step(reshape(slice(target, 1, t, t + 1), {2, 3}), state);
        const Tensor expected = reshape(slice(unrolled.outputs, 1, t, t + 1), {2, 4});
        REQUIRE(test::max_relative_difference(state.h, expected) < 1e-14);
    }
    REQUIRE(test::max_relative_difference(state.c, unrolled.final_state.front().c) < 1e-14);
}

TEST_CASE("rnn, gru and lstm build from config through the registry", "[unit]") {
    Rng rng(6);
    LayerBuildContext build;
    build.width = 6;
    build.init_rng = &rng;
    build.dtype = DType::f64;
    const auto gru = builtin_layers().create({{"type", "gru"}, {"num_layers", 2}, {"bidirectional", true}},
                                             "model.layers[0]", build);
    const Tensor x = Tensor::uniform({2, 4, 6}, -1, 1, rng, DType::f64);
    REQUIRE((*gru)(x, {}).shape() == Shape{2, 4, 6});  // H defaults to C/2 per direction
    REQUIRE(gru->named_parameters().size() == 16);
    const auto rnn = builtin_layers().create({{"type", "rnn"}, {"hidden_size", 5}, {"nonlinearity", "relu"}}, "m", build);
    const std::vector<double> relu_outputs = (*rnn)(x, {}).to_vector();  // (2, 4, 5)
    REQUIRE(relu_outputs.size() == 40);
    REQUIRE(*std::min_element(relu_outputs.begin(), relu_outputs.end()) >= 0.0);
    REQUIRE_THROWS_AS(builtin_layers().create({{"type", "lstm"}, {"nonlinearity", "relu"}}, "m", build), ConfigError);
    REQUIRE_THROWS_WITH(builtin_layers().create({{"type", "lstm"}, {"dropout", 1.0}}, "m", build),
                        Catch::Contains("m.dropout"));
}

TEST_CASE("recurrent layers reject bad shapes and lengths, naming them", "[unit]") {
    Rng rng(8);
    GRU gru(test::small_recurrent_options(1, false), rng);
    const Tensor x = Tensor::uniform({2, 3, 3}, -1, 1, rng, DType::f64);
    REQUIRE_THROWS_WITH(gru(Tensor::zeros({2, 3, 5}, DType::f64), {}), Catch::Contains("(2,3,5)"));
    SequenceContext too_long;
    too_long.lengths = {3, 4};
    REQUIRE_THROWS_WITH(gru(x, too_long), Catch::Contains("length 4 of item 1"));
    SequenceContext left_padded;
    left_padded.padding_mask = f64({0, 0, 0, 1, 0, 0}, {2, 3});
    REQUIRE_THROWS_WITH(gru(x, left_padded), Catch::Contains("right padding"));
    REQUIRE_THROWS_AS(gru.forward_with_state(x, {}, {gru.cell(0).initial_state(3)}), ShapeError);
    GRU bidirectional(test::small_recurrent_options(1, true), rng);
    SequenceContext causal;
    causal.causal = true;
    REQUIRE_THROWS_WITH(bidirectional(x, causal), Catch::Contains("causal"));
}

TEST_CASE("unstack_steps gives x[:, t] for every t, in order", "[unit]") {
    Rng rng(9);
    const Tensor x = Tensor::uniform({2, 5, 3}, -1, 1, rng, DType::f64);
    const std::vector<Tensor> steps = unstack_steps(x);
    REQUIRE(steps.size() == 5);
    for (int64_t t = 0; t < 5; ++t) REQUIRE(steps[t].to_vector() == slice(x, 1, t, t + 1).to_vector());
    REQUIRE_THROWS_AS(unstack_steps(Tensor::zeros({2, 3}, DType::f64)), ShapeError);
}

TEST_CASE("unstack_steps gradient matches finite differences", "[gradcheck]") {
    Rng rng(10);
    const Tensor x = Tensor::uniform({2, 7, 3}, -1, 1, rng, DType::f64);
    const GradcheckResult result = gradcheck(
        [](const std::vector<Tensor>& in) {
            std::vector<Tensor> steps = unstack_steps(in[0]);
            for (std::size_t t = 0; t < steps.size(); ++t) steps[t] = steps[t] * static_cast<double>(t + 1);
            return concat(steps, 0);  // (7·2, 3): each step weighted by its position
        },
        {x});
    INFO(result.message);
    REQUIRE(result.ok);
}
