// The list of built-in layers (layers/builtin_layers.h).
#include "layers/builtin_layers.h"

#include "layers/attention/multi_head_attention.h"
#include "layers/examples/alibi_attention.h"
#include "layers/examples/local_conv_mixer.h"
#include "layers/feed_forward.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/swiglu_feed_forward.h"
#include "layers/transformer_block.h"

namespace tf {

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
