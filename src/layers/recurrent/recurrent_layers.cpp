// RNN, GRU and LSTM: each is the shared unrolled layer with its own cell, plus its config reader.
#include <algorithm>
#include <string>

#include "autograd/error.h"
#include "layers/recurrent/recurrent_layer.h"

namespace tf {

namespace {

Rng& init_rng_of(const LayerBuildContext& build, const std::string& path) {
    if (!build.init_rng) throw ValueError(path + ": the LayerBuildContext has no init_rng");
    return *build.init_rng;
}

}  // namespace

// Keys: hidden_size (default: outputs keep the model width, H = C, or C/2 when bidirectional),
// num_layers (1), bidirectional (false), dropout between layers (0), init ("pytorch" = U(−1/√H, 1/√H),
// or one of the InitKind names).
RecurrentOptions RecurrentLayer::read_options(config::JsonReader& config, const LayerBuildContext& build) {
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
    : RecurrentLayer(options, [&options](int64_t input_size, Rng& cell_rng) {
          return std::make_shared<RNNCell>(input_size, options.hidden_size, options.nonlinearity, options.init, cell_rng,
                                           options.dtype);
      }, rng, std::move(dropout_rng)) {}

std::shared_ptr<SequenceLayer> RNN::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    RecurrentOptions options = read_options(config, build);
    options.nonlinearity = config.choice("nonlinearity", RNNCell::Nonlinearity::tanh);
    return std::make_shared<RNN>(options, init_rng_of(build, config.path()), build.dropout_rng);
}

GRU::GRU(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng)
    : RecurrentLayer(options, [&options](int64_t input_size, Rng& cell_rng) {
          return std::make_shared<GRUCell>(input_size, options.hidden_size, options.init, cell_rng, options.dtype);
      }, rng, std::move(dropout_rng)) {}

std::shared_ptr<SequenceLayer> GRU::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    const RecurrentOptions options = read_options(config, build);
    return std::make_shared<GRU>(options, init_rng_of(build, config.path()), build.dropout_rng);
}

LSTM::LSTM(const RecurrentOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng)
    : RecurrentLayer(options, [&options](int64_t input_size, Rng& cell_rng) {
          return std::make_shared<LSTMCell>(input_size, options.hidden_size, options.init, cell_rng, options.dtype);
      }, rng, std::move(dropout_rng)) {}

std::shared_ptr<SequenceLayer> LSTM::from_config(config::JsonReader& config, const LayerBuildContext& build) {
    const RecurrentOptions options = read_options(config, build);
    return std::make_shared<LSTM>(options, init_rng_of(build, config.path()), build.dropout_rng);
}

}  // namespace tf
