// The three cells' equations, each written as the formula it implements.
#include "layers/recurrent/cells.h"

#include <cmath>
#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

namespace {

// PyTorch's default for recurrent parameters: U(−1/√H, 1/√H); with a scheme, weights follow it.
Tensor init_weight(const Shape& shape, int64_t fan_in, int64_t hidden_size, const std::optional<InitScheme>& init,
                   Rng& rng, DType dtype) {
    if (!init) {
        const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
        return Tensor::uniform(shape, -bound, bound, rng, dtype);
    }
    return init_tensor(shape, fan_in, hidden_size, *init, rng, dtype);
}

Tensor init_bias(int64_t size, int64_t hidden_size, const std::optional<InitScheme>& init, Rng& rng, DType dtype) {
    if (init) return Tensor::zeros({size}, dtype);
    const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
    return Tensor::uniform({size}, -bound, bound, rng, dtype);
}

void check_shape(const char* cell, const char* what, const Tensor& tensor, const Shape& expected) {
    if (!tensor.defined()) throw ShapeError(std::string(cell) + ": " + what + " is undefined, expected " + to_string(expected));
    if (tensor.shape() != expected)
        throw ShapeError(std::string(cell) + ": " + what + " has shape " + to_string(tensor.shape()) + ", expected " +
                         to_string(expected));
}

}  // namespace

RecurrentCell::RecurrentCell(const char* name, int64_t input_size, int64_t hidden_size, int64_t gate_count,
                             const std::optional<InitScheme>& init, Rng& rng, DType dtype)
    : name_(name), input_size_(input_size), hidden_size_(hidden_size), gate_count_(gate_count) {
    if (input_size < 1 || hidden_size < 1)
        throw ValueError(std::string(name) + ": input_size " + std::to_string(input_size) + " and hidden_size " +
                         std::to_string(hidden_size) + " must be ≥ 1");
    const int64_t rows = gate_count * hidden_size;
    weight_ih_ = register_parameter("weight_ih", init_weight({rows, input_size}, input_size, hidden_size, init, rng, dtype));
    weight_hh_ = register_parameter("weight_hh", init_weight({rows, hidden_size}, hidden_size, hidden_size, init, rng, dtype));
    bias_ih_ = register_parameter("bias_ih", init_bias(rows, hidden_size, init, rng, dtype));
    bias_hh_ = register_parameter("bias_hh", init_bias(rows, hidden_size, init, rng, dtype));
}

RecurrentState RecurrentCell::initial_state(int64_t batch) const {
    const Tensor zeros = Tensor::zeros({batch, hidden_size_}, weight_hh_.dtype());
    return {zeros, has_cell_state() ? Tensor::zeros({batch, hidden_size_}, weight_hh_.dtype()) : Tensor()};
}

// x·W_ihᵀ + b_ih: matmul folds every leading axis of x into rows, so (B, T, I) is one GEMM.
Tensor RecurrentCell::project_input(const Tensor& x) const {
    if (x.dim() < 1 || x.size(-1) != input_size_)
        throw ShapeError(std::string(name_) + ": input " + to_string(x.shape()) + " must end in input_size " +
                         std::to_string(input_size_));
    return matmul(x, weight_ih_, {.transpose_a = false, .transpose_b = true}) + bias_ih_;
}

Tensor RecurrentCell::project_hidden(const Tensor& h) const {
    return matmul(h, weight_hh_, {.transpose_a = false, .transpose_b = true}) + bias_hh_;  // (B, G·H)
}

std::vector<Tensor> RecurrentCell::split_gates(const Tensor& stacked) const {
    return split(stacked, std::vector<int64_t>(static_cast<std::size_t>(gate_count_), hidden_size_), 1);
}

RecurrentState RecurrentCell::step_projected(const Tensor& x_proj, const RecurrentState& state) const {
    const int64_t batch = x_proj.dim() == 2 ? x_proj.size(0) : -1;
    check_shape(name_, "projected input", x_proj, {batch, gate_count_ * hidden_size_});
    check_shape(name_, "state h", state.h, {batch, hidden_size_});
    if (has_cell_state()) check_shape(name_, "state c", state.c, {batch, hidden_size_});
    return compute_step(x_proj, state);
}

RecurrentState RecurrentCell::step(const Tensor& x, const RecurrentState& state) const {
    return step_projected(project_input(x), state);
}

// ── Elman RNN ──────────────────────────────────────────────────────────
RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, Nonlinearity nonlinearity,
                 const std::optional<InitScheme>& init, Rng& rng, DType dtype)
    : RecurrentCell("RNNCell", input_size, hidden_size, 1, init, rng, dtype), nonlinearity_(nonlinearity) {}

// h' = act(W_ih x + b_ih + W_hh h + b_hh)
RecurrentState RNNCell::compute_step(const Tensor& x_proj, const RecurrentState& state) const {
    const Tensor pre_activation = x_proj + project_hidden(state.h);  // (B, H)
    return {nonlinearity_ == Nonlinearity::tanh ? tanh(pre_activation) : relu(pre_activation), Tensor()};
}

// ── GRU ────────────────────────────────────────────────────────────────
GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, const std::optional<InitScheme>& init, Rng& rng, DType dtype)
    : RecurrentCell("GRUCell", input_size, hidden_size, 3, init, rng, dtype) {}

// r  = σ(W_ir x + b_ir + W_hr h + b_hr)
// z  = σ(W_iz x + b_iz + W_hz h + b_hz)
// n  = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))      r gates the hidden term, bias included
// h' = (1 − z) ⊙ n + z ⊙ h
RecurrentState GRUCell::compute_step(const Tensor& x_proj, const RecurrentState& state) const {
    // BEGIN SOLUTION A3.1
    const std::vector<Tensor> x_gates = split_gates(x_proj);                 // 3 × (B, H)
    const std::vector<Tensor> h_gates = split_gates(project_hidden(state.h));  // 3 × (B, H)
    const Tensor r = sigmoid(x_gates[0] + h_gates[0]);                       // (B, H)
    const Tensor z = sigmoid(x_gates[1] + h_gates[1]);                       // (B, H)
    const Tensor n = tanh(x_gates[2] + r * h_gates[2]);                      // (B, H)
    return {(1.0 - z) * n + z * state.h, Tensor()};
    // END SOLUTION
}

// ── LSTM ───────────────────────────────────────────────────────────────
LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, const std::optional<InitScheme>& init, Rng& rng, DType dtype)
    : RecurrentCell("LSTMCell", input_size, hidden_size, 4, init, rng, dtype) {}

// i = σ(W_ii x + b_ii + W_hi h + b_hi)     f = σ(W_if x + b_if + W_hf h + b_hf)
// g = tanh(W_ig x + b_ig + W_hg h + b_hg)  o = σ(W_io x + b_io + W_ho h + b_ho)
// c' = f ⊙ c + i ⊙ g                       h' = o ⊙ tanh(c')
RecurrentState LSTMCell::compute_step(const Tensor& x_proj, const RecurrentState& state) const {
    const std::vector<Tensor> gates = split_gates(x_proj + project_hidden(state.h));  // 4 × (B, H)
    const Tensor i = sigmoid(gates[0]);
    const Tensor f = sigmoid(gates[1]);
    const Tensor g = tanh(gates[2]);
    const Tensor o = sigmoid(gates[3]);
    const Tensor c_next = f * state.c + i * g;  // (B, H)
    return {o * tanh(c_next), c_next};
}

}  // namespace tf
