// The keys every recurrent layer shares, and RNN, GRU and LSTM: the shared unrolled layer with a
// cell from the cell table.
#include <algorithm>
#include <string>

#include "autograd/error.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/recurrent/recurrent_layer.h"

namespace tf {

// Keys: hidden_size (default: outputs keep the model width, H = C, or C/2 when bidirectional),
// num_layers (1), bidirectional (false), dropout between layers (0), init ("pytorch" = U(−1/√H, 1/√H),
// or one of the InitKind names).
RecurrentOptions read_recurrent_options(config::JsonReader& config, const LayerBuildContext& build) {
    RecurrentOptions options;
    options.input_size = build.width;
    options.bidirectional = config.boolean("bidirectional", false);
    const int64_t default_hidden = std::max<int64_t>(1, build.width / (options.bidirectional ? 2 : 1));
    options.hidden_size = config.integer("hidden_size", default_hidden, {.min = 1, .max = 1 << 20});
    options.num_layers = config.integer("num_layers", 1, {.min = 1, .max = 64});
    options.dropout = config.number("dropout", 0.0, 0.0, 1.0);
    if (options.dropout >= 1.0)
        throw ConfigError(config.path_of("dropout") + ": expected a probability in [0, 1), got 1");
    std::vector<std::string> inits = {"pytorch"};
    for (const std::string& name : enum_name_list<InitKind>()) inits.push_back(name);
    const std::string init = config.choice("init", "pytorch", inits);
    if (const auto kind = enum_from_name<InitKind>(init)) options.init = InitScheme{*kind, build.init.std};
    options.dtype = build.dtype;
    return options;
}

RNN::RNN(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng)
    : RecurrentLayer(options, cell_factory("rnn", options), rng, std::move(dropout_rng)) {}

GRU::GRU(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng)
    : RecurrentLayer(options, cell_factory("gru", options), rng, std::move(dropout_rng)) {}

LSTM::LSTM(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng)
    : RecurrentLayer(options, cell_factory("lstm", options), rng, std::move(dropout_rng)) {}

}  // namespace tf
