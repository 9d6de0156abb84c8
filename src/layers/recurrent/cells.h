// Recurrent cells: one time step of an Elman RNN, a GRU and an LSTM, composed from ops (the tape
// differentiates them; there is no backward code here). Parameters are named, shaped and gate-ordered
// as PyTorch's nn.RNNCell / nn.GRUCell / nn.LSTMCell, so weights move between the two 1:1.
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "layers/init.h"
#include "layers/module.h"

namespace tf {

// What a recurrent layer carries from step to step: h (B, H), and for an LSTM also the cell
// memory c (B, H) (undefined for RNN and GRU).
struct RecurrentState {
    Tensor h;
    Tensor c;
};

// The parts every cell shares: G gate blocks of H rows stacked in one matrix each,
//   weight_ih (G·H, I)   weight_hh (G·H, H)   bias_ih (G·H)   bias_hh (G·H)
// so all gates cost one matmul for the input and one for the hidden state, then a split.
// init: nullopt is PyTorch's default, every parameter ~ U(−1/√H, 1/√H); a scheme initialises
// the weights with it (fan_in = I or H, fan_out = H per gate block) and the biases with 0.
class RecurrentCell : public Module {
public:
    int64_t input_size() const { return input_size_; }
    int64_t hidden_size() const { return hidden_size_; }
    int64_t gate_count() const { return gate_count_; }
    virtual bool has_cell_state() const { return false; }  // true for the LSTM (c)
    RecurrentState initial_state(int64_t batch) const;     // zeros

    // W_ih·x + b_ih for every gate at once: x (…, I) → (…, G·H). An unrolled layer calls this once
    // for all T steps (one GEMM) and then only the hidden product per step.
    Tensor project_input(const Tensor& x) const;
    // One step from an already projected input x_proj (B, G·H) and the previous state.
    RecurrentState step_projected(const Tensor& x_proj, const RecurrentState& state) const;
    // One step from a raw input x (B, I): what a decoder calls token by token.
    RecurrentState step(const Tensor& x, const RecurrentState& state) const;

    const Tensor& weight_ih() const { return weight_ih_; }
    const Tensor& weight_hh() const { return weight_hh_; }
    const Tensor& bias_ih() const { return bias_ih_; }
    const Tensor& bias_hh() const { return bias_hh_; }

protected:
    RecurrentCell(const char* name, int64_t input_size, int64_t hidden_size, int64_t gate_count,
                  const std::optional<InitScheme>& init, Rng& rng, DType dtype);
    // The cell's own update, given x_proj (B, G·H) and a state already checked against H.
    virtual RecurrentState compute_step(const Tensor& x_proj, const RecurrentState& state) const = 0;
    Tensor project_hidden(const Tensor& h) const;                // W_hh·h + b_hh: (B, H) → (B, G·H)
    std::vector<Tensor> split_gates(const Tensor& stacked) const;  // (B, G·H) → G tensors (B, H)

private:
    const char* name_;
    int64_t input_size_, hidden_size_, gate_count_;
    Tensor weight_ih_, weight_hh_, bias_ih_, bias_hh_;
};

// Elman RNN: h' = act(W_ih x + b_ih + W_hh h + b_hh),  act = tanh or relu.        G = 1
class RNNCell : public RecurrentCell {
public:
    enum class Nonlinearity { tanh, relu };
    RNNCell(int64_t input_size, int64_t hidden_size, Nonlinearity nonlinearity,
            const std::optional<InitScheme>& init, Rng& rng, DType dtype = DType::f32);

protected:
    RecurrentState compute_step(const Tensor& x_proj, const RecurrentState& state) const override;

private:
    Nonlinearity nonlinearity_;
};

// The "nonlinearity" of an "rnn" layer config.
inline constexpr EnumName<RNNCell::Nonlinearity> kNonlinearityNames[] = {{RNNCell::Nonlinearity::tanh, "tanh"},
                                                                        {RNNCell::Nonlinearity::relu, "relu"}};
inline std::span<const EnumName<RNNCell::Nonlinearity>> enum_names(RNNCell::Nonlinearity) { return kNonlinearityNames; }

// GRU (PyTorch's equations), gate blocks in the order r, z, n.                     G = 3
class GRUCell : public RecurrentCell {
public:
    GRUCell(int64_t input_size, int64_t hidden_size, const std::optional<InitScheme>& init, Rng& rng,
            DType dtype = DType::f32);

protected:
    RecurrentState compute_step(const Tensor& x_proj, const RecurrentState& state) const override;
};

// LSTM, gate blocks in the order i, f, g, o; the state is (h, c).                  G = 4
class LSTMCell : public RecurrentCell {
public:
    LSTMCell(int64_t input_size, int64_t hidden_size, const std::optional<InitScheme>& init, Rng& rng,
             DType dtype = DType::f32);
    bool has_cell_state() const override { return true; }

protected:
    RecurrentState compute_step(const Tensor& x_proj, const RecurrentState& state) const override;
};

}  // namespace tf
