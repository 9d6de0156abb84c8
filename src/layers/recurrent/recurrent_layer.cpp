// Unrolling a cell over time, across layers and directions, with padded batches carried through.
#include "layers/recurrent/recurrent_layer.h"

#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

namespace {

// Lengths from a (B, T) padding mask (1 = pad), which must be right padding: valid steps, then pads.
std::vector<int64_t> lengths_from_mask(const Tensor& mask, int64_t batch, int64_t steps) {
    if (mask.shape() != Shape{batch, steps})
        throw ShapeError("RecurrentLayer: padding_mask " + to_string(mask.shape()) + " does not match the input's (B, T) = " +
                         to_string(Shape{batch, steps}));
    const std::vector<double> pad = mask.to_vector();
    std::vector<int64_t> lengths;
    for (int64_t b = 0; b < batch; ++b) {
        int64_t length = 0;
        while (length < steps && pad[b * steps + length] == 0) ++length;
        for (int64_t t = length; t < steps; ++t)
            if (pad[b * steps + t] == 0)
                throw ValueError("RecurrentLayer: padding_mask row " + std::to_string(b) + " has a valid step " +
                                 std::to_string(t) + " after padding; recurrent layers need right padding");
        lengths.push_back(length);
    }
    return lengths;
}

// Each item's valid length, or an empty vector when every item is full length (no masking needed).
std::vector<int64_t> valid_lengths(const SequenceContext& context, int64_t batch, int64_t steps) {
    std::vector<int64_t> lengths = context.lengths;
    if (lengths.empty() && context.padding_mask.defined()) lengths = lengths_from_mask(context.padding_mask, batch, steps);
    if (lengths.empty()) return lengths;
    if (static_cast<int64_t>(lengths.size()) != batch)
        throw ShapeError("RecurrentLayer: " + std::to_string(lengths.size()) + " lengths for a batch of " +
                         std::to_string(batch));
    bool all_full = true;
    for (std::size_t b = 0; b < lengths.size(); ++b) {
        if (lengths[b] < 0 || lengths[b] > steps)
            throw ValueError("RecurrentLayer: length " + std::to_string(lengths[b]) + " of item " + std::to_string(b) +
                             " is outside [0, T=" + std::to_string(steps) + "]");
        all_full = all_full && lengths[b] == steps;
    }
    return all_full ? std::vector<int64_t>{} : lengths;
}

// (B, 1): 1 where item b is still inside its sequence at step t (t < length_b), else 0.
Tensor step_mask(const std::vector<int64_t>& lengths, int64_t t, DType dtype) {
    std::vector<double> valid;
    for (const int64_t length : lengths) valid.push_back(t < length ? 1.0 : 0.0);
    return Tensor::from_data(valid, {static_cast<int64_t>(lengths.size()), 1}, dtype);
}

void split_halves(const Tensor& x, std::vector<Tensor>& steps) {
    const int64_t count = x.size(1), half = count / 2;
    if (count == 1) {
        steps.push_back(reshape(x, {x.size(0), x.size(2)}));
        return;
    }
    split_halves(slice(x, 1, 0, half), steps);
    split_halves(slice(x, 1, half, count), steps);
}

}  // namespace

// Halving: each level of the tree moves B·T·W numbers in all, forward and backward.
std::vector<Tensor> unstack_steps(const Tensor& x) {
    if (x.dim() != 3 || x.size(1) < 1)
        throw ShapeError("unstack_steps: input " + to_string(x.shape()) + " must be (B, T ≥ 1, W)");
    std::vector<Tensor> steps;
    split_halves(x, steps);
    return steps;
}

RecurrentLayer::RecurrentLayer(const RecurrentOptions& options, const CellFactory& make_cell, Rng& rng,
                               std::shared_ptr<Rng> dropout_rng)
    : num_layers_(options.num_layers), directions_(options.bidirectional ? 2 : 1), hidden_size_(options.hidden_size) {
    if (num_layers_ < 1) throw ValueError("RecurrentLayer: num_layers " + std::to_string(num_layers_) + " must be ≥ 1");
    for (int64_t layer = 0; layer < num_layers_; ++layer) {
        for (int64_t direction = 0; direction < directions_; ++direction) {
            auto cell = make_cell(layer == 0 ? options.input_size : output_size(), rng);
            // The cell is not a child module: its parameters are registered here under PyTorch's
            // flat names (weight_ih_l0, weight_ih_l0_reverse, …), sharing the cell's tensors.
            const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
            for (const auto& [name, tensor] : cell->named_parameters()) register_parameter(name + suffix, tensor);
            cells_.push_back(std::move(cell));
        }
    }
    dropout_ = register_module("dropout", std::make_shared<Dropout>(options.dropout, std::move(dropout_rng)));
}

const RecurrentCell& RecurrentLayer::cell(int64_t layer, Direction direction) const {
    const bool reverse = direction == Direction::reverse;
    if (layer < 0 || layer >= num_layers_ || (reverse && directions_ == 1))
        throw ValueError("RecurrentLayer::cell: no layer " + std::to_string(layer) + (reverse ? " reverse" : "") +
                         " in a layer of " + std::to_string(num_layers_) + " × " + std::to_string(directions_));
    return *cells_[static_cast<std::size_t>(layer * directions_ + (reverse ? 1 : 0))];
}

Tensor RecurrentLayer::forward(const Tensor& x, const SequenceContext& context) {
    return forward_with_state(x, context).outputs;
}

// Per step t (backwards when reverse):  state_t = where(t < len, cell(x_t, state_{t−1}), state_{t−1})
//                                       output_t = where(t < len, h_t, 0)
// A reverse pass starting at T−1 therefore keeps its initial state until t = len_b − 1, i.e. it
// starts at each item's last valid step.
std::pair<Tensor, RecurrentState> RecurrentLayer::run_direction(const RecurrentCell& cell, const Tensor& x,
                                                                const std::vector<int64_t>& lengths, Direction direction,
                                                                RecurrentState state) const {
    const bool reverse = direction == Direction::reverse;
    const int64_t batch = x.size(0), steps = x.size(1);
    const std::vector<Tensor> x_proj = unstack_steps(cell.project_input(x));  // T × (B, G·H), from one GEMM
    const Tensor zeros = Tensor::zeros({batch, hidden_size_}, x.dtype());
    std::vector<Tensor> outputs(static_cast<std::size_t>(steps));
    for (int64_t k = 0; k < steps; ++k) {
        const int64_t t = reverse ? steps - 1 - k : k;
        const RecurrentState next = cell.step_projected(x_proj[static_cast<std::size_t>(t)], state);
        Tensor output = next.h;  // (B, H)
        if (lengths.empty()) {
            state = next;
        } else {
            const Tensor valid = step_mask(lengths, t, x.dtype());  // (B, 1)
            state.h = where(valid, next.h, state.h);
            if (next.c.defined()) state.c = where(valid, next.c, state.c);
            output = where(valid, next.h, zeros);
        }
        outputs[static_cast<std::size_t>(t)] = reshape(output, {batch, 1, hidden_size_});
    }
    return {concat(outputs, 1), state};  // (B, T, H)
}

RecurrentOutput RecurrentLayer::forward_with_state(const Tensor& x, const SequenceContext& context,
                                                   const std::vector<RecurrentState>& initial_state) {
    const int64_t input_size = cells_.front()->input_size();
    if (x.dim() != 3 || x.size(1) < 1 || x.size(2) != input_size)
        throw ShapeError("RecurrentLayer: input " + to_string(x.shape()) + " must be (B, T ≥ 1, I=" +
                         std::to_string(input_size) + ")");
    if (!initial_state.empty() && initial_state.size() != cells_.size())
        throw ShapeError("RecurrentLayer: " + std::to_string(initial_state.size()) + " initial states given, expected " +
                         std::to_string(cells_.size()) + " (num_layers × directions)");
    if (context.causal && directions_ == 2)
        throw ValueError("RecurrentLayer: a bidirectional layer reads future steps, but the context asks for causal");
    const int64_t batch = x.size(0);
    const std::vector<int64_t> lengths = valid_lengths(context, batch, x.size(1));
    RecurrentOutput result;
    Tensor layer_input = x;  // (B, T, I), then (B, T, H·dirs) above the first layer
    for (int64_t layer = 0; layer < num_layers_; ++layer) {
        std::vector<Tensor> direction_outputs;  // dirs × (B, T, H)
        for (int64_t direction = 0; direction < directions_; ++direction) {
            const std::size_t index = static_cast<std::size_t>(layer * directions_ + direction);
            const RecurrentCell& layer_cell = *cells_[index];
            RecurrentState start = initial_state.empty() ? layer_cell.initial_state(batch) : initial_state[index];
            auto [outputs, final_state] = run_direction(layer_cell, layer_input, lengths, direction == 1 ? Direction::reverse : Direction::forward, start);
            direction_outputs.push_back(outputs);
            result.final_state.push_back(final_state);
        }
        layer_input = directions_ == 1 ? direction_outputs.front() : concat(direction_outputs, 2);  // (B, T, H·dirs)
        if (layer + 1 < num_layers_) layer_input = (*dropout_)(layer_input);
    }
    result.outputs = layer_input;
    return result;
}

}  // namespace tf
