// The registry and the list of built-in layers.
#include "layers/registry.h"

#include "autograd/error.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/examples/alibi_attention.h"
#include "layers/examples/local_conv_mixer.h"
#include "layers/feed_forward.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/swiglu_feed_forward.h"
#include "layers/transformer_block.h"

namespace tf {

void LayerRegistry::add(const std::string& type, LayerFactory factory, const std::string& pytorch_twin) {
    if (factories_.count(type)) throw ValueError("LayerRegistry: type '" + type + "' is registered twice");
    factories_[type] = std::move(factory);
    if (!pytorch_twin.empty()) pytorch_twins_[type] = pytorch_twin;
}

std::string LayerRegistry::pytorch_twin(const std::string& type) const {
    const auto found = pytorch_twins_.find(type);
    return found == pytorch_twins_.end() ? "" : found->second;
}

std::vector<std::string> LayerRegistry::types() const {
    std::vector<std::string> names;
    for (const auto& [name, unused] : factories_) names.push_back(name);
    return names;
}

std::shared_ptr<SequenceLayer> LayerRegistry::create(const config::Json& block, const std::string& path,
                                                     const LayerBuildContext& build) const {
    config::JsonReader reader(block, path);
    const std::string type = reader.choice("type", types());
    auto layer = factories_.at(type)(reader, build);
    reader.finish();
    return layer;
}

LayerChoice LayerChoice::read(config::JsonReader& config, const std::string& key) {
    if (!config.has(key)) return {};
    return {config.raw(key), config.path_of(key)};
}

void register_builtin_layers(LayerRegistry& registry) {
    registry.add("multi_head_attention", MultiHeadAttention::from_config);
    registry.add("transformer_encoder_block", TransformerEncoderBlock::from_config);
    registry.add("transformer_decoder_block", TransformerDecoderBlock::from_config);
    registry.add("feed_forward", FeedForward::from_config);     // the blocks' default "ffn"
    registry.add("swiglu", SwiGluFeedForward::from_config);
    for (const std::string& cell : recurrent_cell_names()) registry.add(cell, recurrent_layer_factory(cell));  // rnn, gru, lstm
    registry.add("local_conv_mixer", LocalConvMixer::from_config, "LocalConvMixer");  // the worked example of docs/extending.md
    registry.add("alibi_attention", AlibiAttention::from_config);    // its attention example
}

const LayerRegistry& builtin_layers() {
    static const LayerRegistry registry = [] {
        LayerRegistry filled;
        register_builtin_layers(filled);
        return filled;
    }();
    return registry;
}

}  // namespace tf
