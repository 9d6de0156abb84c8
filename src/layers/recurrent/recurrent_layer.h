// Unrolled recurrent layers — RNN, GRU, LSTM: x (B, T, I) → outputs (B, T, H·dirs), multi-layer,
// optionally bidirectional, over right-padded batches (an item's padded steps leave its state
// alone and output 0). The per-step work is one cell from cells.h; this file only unrolls it.
//
// Parameter names follow PyTorch's nn.RNN/nn.GRU/nn.LSTM exactly, so a state dict maps 1:1:
//   weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}     (layer k, forward direction)
//   weight_ih_l{k}_reverse, …                                       (layer k, reverse direction)
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "layers/dropout.h"
#include "layers/recurrent/cells.h"
#include "layers/registry.h"
#include "layers/sequence_layer.h"

namespace tf {

// The T steps of x (B, T, W) as T tensors (B, W), for anything that loops over time (this layer, a
// teacher-forced decoder). Slicing each step straight out of x would make every step's backward add a
// full (B, T, W) gradient into x's, O(T²·B·W) in all; splitting by halves costs O(B·T·W·log T).
std::vector<Tensor> unstack_steps(const Tensor& x);

struct RecurrentOptions {
    int64_t input_size = 0;   // I
    int64_t hidden_size = 0;  // H
    int64_t num_layers = 1;
    bool bidirectional = false;  // a second cell reads each sequence backwards; outputs concatenate
    double dropout = 0.0;        // on each layer's outputs but the last, while training (as PyTorch)
    RNNCell::Nonlinearity nonlinearity = RNNCell::Nonlinearity::tanh;  // RNN only
    std::optional<InitScheme> init;  // nullopt: PyTorch's U(−1/√H, 1/√H)
    DType dtype = DType::f32;
};

struct RecurrentOutput {
    Tensor outputs;  // (B, T, H·dirs), 0 at padded steps
    // One state per (layer, direction), index layer·dirs + direction — PyTorch's h_n order.
    // For a padded item: the forward state after its last valid step, the reverse state after step 0.
    std::vector<RecurrentState> final_state;
};

class RecurrentLayer : public SequenceLayer {
public:
    using CellFactory = std::function<std::shared_ptr<RecurrentCell>(int64_t input_size, Rng& rng)>;
    // num_layers cells per direction from make_cell (cell_registry.h makes them by name).
    RecurrentLayer(const RecurrentOptions& options, const CellFactory& make_cell, Rng& rng,
                   std::shared_ptr<Rng> dropout_rng);
    // Lengths come from context.lengths, or else from context.padding_mask (right padding only).
    // A unidirectional layer is causal by construction; a bidirectional one refuses context.causal.
    Tensor forward(const Tensor& x, const SequenceContext& context) override;
    // initial_state: empty (zeros) or one state per (layer, direction), as final_state.
    RecurrentOutput forward_with_state(const Tensor& x, const SequenceContext& context,
                                       const std::vector<RecurrentState>& initial_state = {});

    int64_t num_layers() const { return num_layers_; }
    int64_t directions() const { return directions_; }
    int64_t hidden_size() const { return hidden_size_; }
    int64_t output_size() const { return hidden_size_ * directions_; }
    // Which way a cell reads the steps: t = 0 … T−1, or T−1 … 0 (a bidirectional layer's second cell).
    enum class Direction { forward, reverse };
    // The cell of one layer and direction (for stepping a decoder, or inspection).
    const RecurrentCell& cell(int64_t layer, Direction direction = Direction::forward) const;

private:
    // One cell over every step of x (B, T, I), forwards or backwards; `lengths` empty = no padding.
    std::pair<Tensor, RecurrentState> run_direction(const RecurrentCell& cell, const Tensor& x,
                                                    const std::vector<int64_t>& lengths, Direction direction,
                                                    RecurrentState state) const;

    int64_t num_layers_, directions_, hidden_size_;
    std::vector<std::shared_ptr<RecurrentCell>> cells_;  // index layer·dirs + direction
    std::shared_ptr<Dropout> dropout_;
};

// h_t = act(W_ih x_t + b_ih + W_hh h_{t−1} + b_hh)
// Reads the keys every recurrent layer shares: hidden_size, num_layers, bidirectional, dropout, init.
RecurrentOptions read_recurrent_options(config::JsonReader& config, const LayerBuildContext& build);

// The layers by the name of their cell, for code that builds one directly (a config builds them
// through the cell table, cell_registry.h).
class RNN : public RecurrentLayer {
public:
    RNN(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng = nullptr);
};

class GRU : public RecurrentLayer {
public:
    GRU(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng = nullptr);
};

class LSTM : public RecurrentLayer {
public:
    LSTM(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng = nullptr);
};

}  // namespace tf
