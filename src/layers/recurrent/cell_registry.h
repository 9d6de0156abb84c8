// The recurrent cells a config can name, one line each in recurrent_cells(): "rnn", "gru", "lstm".
// Everything recurrent is built from this table — the layer registry's recurrent layer types (a
// "gru" block) and the RNN encoder-decoder's encoder, decoder and attention-decoder cell — so a new
// cell (a class deriving RecurrentCell) is one line here for every model.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config/json_reader.h"
#include "layers/recurrent/recurrent_layer.h"
#include "util/named_table.h"

namespace tf {

struct RecurrentCellType {
    // One cell reading input_size features, with options' hidden_size, init, dtype (and nonlinearity).
    std::function<std::shared_ptr<RecurrentCell>(int64_t input_size, const RecurrentOptions& options, Rng& rng)> make;
    // The cell's own config keys of a layer of it, beyond the shared ones (read_recurrent_options);
    // empty when it has none.
    std::function<void(config::JsonReader& config, RecurrentOptions& options)> read_keys{};
    // The torch.nn layer the exported model.py builds for it (src/export/pytorch_model.py), with
    // PyTorch's parameter names; "" when model.py has none yet, and `export --to pytorch` refuses it.
    std::string pytorch_twin{};
};

// In the order configs and messages list them; a test may add its own cell for a while
// (ScopedTableEntry, util/named_table.h).
NamedTable<RecurrentCellType>& recurrent_cell_table();
const NamedTable<RecurrentCellType>& recurrent_cells();
std::vector<std::string> recurrent_cell_names();
// The entry named `name`; ValueError naming the known cells when there is none.
const RecurrentCellType& recurrent_cell(const std::string& name);

// Makes `cell` cells with `options` (read during the layer's construction only: both must outlive it).
RecurrentLayer::CellFactory cell_factory(const std::string& cell, const RecurrentOptions& options);

// A layer of `cell` cells (options.num_layers of them, times two when bidirectional).
std::shared_ptr<RecurrentLayer> make_recurrent_layer(const std::string& cell, const RecurrentOptions& options, Rng& rng,
                                                     std::shared_ptr<Rng> dropout_rng);

// The layer registry's factory for {"type": cell, "hidden_size", "num_layers", "bidirectional",
// "dropout", "init", and the cell's own keys}.
LayerFactory recurrent_layer_factory(const std::string& cell);

}  // namespace tf
