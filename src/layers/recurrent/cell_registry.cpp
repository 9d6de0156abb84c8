// The cell table and the recurrent layers built from it.
#include "layers/recurrent/cell_registry.h"

namespace tf {

NamedTable<RecurrentCellType>& recurrent_cell_table() {
    static NamedTable<RecurrentCellType> cells = {
        {"rnn", {[](int64_t input, const RecurrentOptions& o, Rng& rng) {
                     return std::make_shared<RNNCell>(input, o.hidden_size, o.nonlinearity, o.init, rng, o.dtype);
                 },
                 [](config::JsonReader& config, RecurrentOptions& o) {
                     o.nonlinearity = config.choice("nonlinearity", RNNCell::Nonlinearity::tanh);
                 },
                 "nn.RNN"}},
        {"gru", {[](int64_t input, const RecurrentOptions& o, Rng& rng) {
             return std::make_shared<GRUCell>(input, o.hidden_size, o.init, rng, o.dtype);
         }, {}, "nn.GRU"}},
        {"lstm", {[](int64_t input, const RecurrentOptions& o, Rng& rng) {
             return std::make_shared<LSTMCell>(input, o.hidden_size, o.init, rng, o.dtype);
         }, {}, "nn.LSTM"}},
    };
    return cells;
}

const NamedTable<RecurrentCellType>& recurrent_cells() { return recurrent_cell_table(); }

std::vector<std::string> recurrent_cell_names() { return names_of(recurrent_cells()); }

const RecurrentCellType& recurrent_cell(const std::string& name) {
    return entry_named(recurrent_cells(), name, "recurrent cell");
}

RecurrentLayer::CellFactory cell_factory(const std::string& cell, const RecurrentOptions& options) {
    const RecurrentCellType& type = recurrent_cell(cell);
    return [&type, &options](int64_t input_size, Rng& rng) { return type.make(input_size, options, rng); };
}

std::shared_ptr<RecurrentLayer> make_recurrent_layer(const std::string& cell, const RecurrentOptions& options, Rng& rng,
                                                     std::shared_ptr<Rng> dropout_rng) {
    return std::make_shared<RecurrentLayer>(options, cell_factory(cell, options), rng, std::move(dropout_rng));
}

LayerFactory recurrent_layer_factory(const std::string& cell) {
    return [cell](config::JsonReader& config, const LayerBuildContext& build) -> std::shared_ptr<SequenceLayer> {
        if (!build.init_rng) throw ValueError(config.path() + ": the LayerBuildContext has no init_rng");
        RecurrentOptions options = read_recurrent_options(config, build);
        if (const RecurrentCellType& type = recurrent_cell(cell); type.read_keys) type.read_keys(config, options);
        return make_recurrent_layer(cell, options, *build.init_rng, build.dropout_rng);
    };
}

}  // namespace tf
