// The RNN encoder-decoder, teacher-forced and step by step.
#include "models/rnn_seq2seq.h"

#include "autograd/error.h"
#include "autograd/ops.h"
#include "layers/attention/decoder_attention_registry.h"
#include "layers/recurrent/cell_registry.h"

namespace tf {

namespace {

// Builds the attention once at the model's sizes, so a scorer that cannot read these encoder states
// (luong_dot with a bidirectional encoder: 2H-wide keys for an H-wide query) fails at `config check`.
void check_attention_fits(config::JsonReader& section, const RnnSeq2SeqOptions& options) {
    if (!options.attention) return;
    const int64_t key_size = options.hidden_size * (options.bidirectional_encoder ? 2 : 1);
    try {
        Rng probe_rng(0);
        decoder_attention(*options.attention).make(options.hidden_size, key_size, InitScheme{}, probe_rng, DType::f32);
    } catch (const ShapeError& error) {
        throw ConfigError(section.path_of("attention") + ": " + error.what() +
                          (options.bidirectional_encoder ? " (a bidirectional encoder's states are 2·hidden_size wide)" : ""));
    }
}

}  // namespace

RnnSeq2SeqOptions read_rnn_seq2seq_options(config::JsonReader& section) {
    RnnSeq2SeqOptions options;
    options.cell = section.choice("cell", options.cell, recurrent_cell_names());
    options.embedding_size = section.integer("embedding_size", options.embedding_size, {.min = 1, .max = 65536});
    options.hidden_size = section.integer("hidden_size", options.hidden_size, {.min = 1, .max = 65536});
    options.num_layers = section.integer("num_layers", options.num_layers, {.min = 1, .max = 16});
    options.bidirectional_encoder = section.boolean("bidirectional_encoder", options.bidirectional_encoder);
    // "none" (the first choice), or a row of the decoder-attention table
    std::vector<std::string> attentions = {"none"};
    for (const std::string& name : decoder_attention_names()) attentions.push_back(name);
    const std::string attention = section.choice("attention", attentions.front(), attentions);
    for (const auto& [name, type] : decoder_attentions())
        if (name == attention) options.attention = name;
    options.dropout = section.number("dropout", options.dropout, 0.0, 0.99);
    check_attention_fits(section, options);
    return options;
}

namespace {

// The last column of prefix (B, t): the token each row feeds to the decoder now.
IndexTensor last_tokens(const IndexTensor& prefix) {
    const int64_t B = prefix.shape[0], t = prefix.shape[1];
    std::vector<int64_t> last;
    for (int64_t b = 0; b < B; ++b) last.push_back(prefix.values[b * t + t - 1]);
    return IndexTensor(last, {B});
}

}  // namespace

RnnSeq2Seq::RnnSeq2Seq(const RnnSeq2SeqOptions& options, const ModelBuildContext& build)
    : SequenceModel(build.dropout_rng), options_(options), vocab_size_(build.vocab_size) {
    Rng rng(build.seed);
    const int64_t E = options.embedding_size, H = options.hidden_size, V = build.vocab_size;
    const InitScheme embedding_init{InitKind::normal, 1.0}, linear_init{InitKind::xavier_uniform, 0.0};
    src_embedding_ = register_module("src_embedding", std::make_shared<Embedding>(V, E, build.pad_id, embedding_init, rng, build.dtype));
    tgt_embedding_ = register_module("tgt_embedding", std::make_shared<Embedding>(V, E, build.pad_id, embedding_init, rng, build.dtype));
    RecurrentOptions encoder_options{E, H, options.num_layers, options.bidirectional_encoder, options.dropout,
                                     RNNCell::Nonlinearity::tanh, std::nullopt, build.dtype};
    encoder_ = register_module("encoder", make_recurrent_layer(options.cell, encoder_options, rng, build.dropout_rng));
    const int64_t H_enc = encoder_->output_size();
    if (options.attention) {
        const RecurrentOptions cell_options{E + H_enc, H, 1, false, 0.0, RNNCell::Nonlinearity::tanh, std::nullopt, build.dtype};
        decoder_cell_ = register_module("decoder_cell", recurrent_cell(options.cell).make(E + H_enc, cell_options, rng));
        bridge_ = register_module("bridge", std::make_shared<Linear>(H_enc, H, Bias::learned, linear_init, rng, build.dtype));
        attention_ = register_module("attention", decoder_attention(*options.attention).make(H, H_enc, linear_init, rng, build.dtype));
        output_ = register_module("output", std::make_shared<Linear>(H + H_enc + E, V, Bias::learned, linear_init, rng, build.dtype));
    } else {
        RecurrentOptions decoder_options{E, H, options.num_layers, false, options.dropout,
                                         RNNCell::Nonlinearity::tanh, std::nullopt, build.dtype};
        decoder_ = register_module("decoder", make_recurrent_layer(options.cell, decoder_options, rng, build.dropout_rng));
        if (options.bidirectional_encoder)
            bridge_ = register_module("bridge", std::make_shared<Linear>(H_enc, H, Bias::learned, linear_init, rng, build.dtype));
        output_ = register_module("output", std::make_shared<Linear>(H, V, Bias::learned, linear_init, rng, build.dtype));
    }
}

RnnSeq2Seq::Encoded RnnSeq2Seq::encode(const ModelInput& input) {
    const Tensor x = probe((*src_embedding_)(input.src), input.observer);  // (B, S, E)
    SequenceContext context;
    context.lengths = input.src_lengths;
    context.padding_mask = input.src_padding_mask;
    RecurrentOutput encoded = encoder_->forward_with_state(x, context);
    const int64_t dirs = encoder_->directions();
    // A layer's final h (and c) with both directions side by side: (B, H·dirs).
    const auto layer_final = [&](int64_t layer, bool cell_memory) {
        std::vector<Tensor> parts;
        for (int64_t d = 0; d < dirs; ++d) parts.push_back(cell_memory ? encoded.final_state[layer * dirs + d].c
                                                                       : encoded.final_state[layer * dirs + d].h);
        return dirs == 1 ? parts[0] : concat(parts, 1);
    };
    Encoded result{encoded.outputs, {}};
    const bool carries_c = cells_carry_c();
    if (has_attention()) {
        // s_0 = tanh(W_init h_S) from the last encoder layer; an LSTM's c_0 starts at 0.
        const Tensor s0 = tanh((*bridge_)(layer_final(encoder_->num_layers() - 1, false)));
        result.decoder_init.push_back({s0, carries_c ? Tensor::zeros(s0.shape(), s0.dtype()) : Tensor()});
        return result;
    }
    for (int64_t layer = 0; layer < encoder_->num_layers(); ++layer) {
        if (!bridge_) {
            result.decoder_init.push_back(encoded.final_state[layer]);
            continue;
        }
        const Tensor h = tanh((*bridge_)(layer_final(layer, false)));
        result.decoder_init.push_back({h, carries_c ? tanh((*bridge_)(layer_final(layer, true))) : Tensor()});
    }
    return result;
}

Tensor RnnSeq2Seq::project_keys(const Tensor& states) const {
    return attention_->precompute_keys(states);
}

AttentionContext RnnSeq2Seq::attend(const Tensor& query, const Tensor& projected_keys, const Tensor& states,
                                    const Tensor& padding) const {
    return attention_->attend(query, projected_keys, states, padding);
}

std::pair<RecurrentState, Tensor> RnnSeq2Seq::attention_step(const Tensor& x, const RecurrentState& state, const Tensor& keys,
                                                             const Tensor& states, const Tensor& padding, Tensor* weights) {
    const AttentionContext read = attend(state.h, keys, states, padding);  // context from s_{t−1}
    const RecurrentState next = decoder_cell_->step(concat({x, read.context}, 1), state);
    if (weights) *weights = read.weights;
    return {next, concat({next.h, read.context, x}, 1)};  // [s_t; context_t; x_t]
}

Tensor RnnSeq2Seq::forward(const ModelInput& input) {
    Encoded encoded = encode(input);
    const Tensor target = (*tgt_embedding_)(input.tgt_in);  // (B, T, E)
    if (!has_attention()) {
        const RecurrentOutput decoded = decoder_->forward_with_state(target, SequenceContext{}, encoded.decoder_init);
        return (*output_)(decoded.outputs);  // (B, T, V)
    }
    const Tensor keys = project_keys(encoded.states);
    const int64_t B = target.size(0);
    RecurrentState state = encoded.decoder_init[0];
    const bool recording = records_attention(input.observer);
    std::vector<Tensor> features, weights;
    for (const Tensor& x : unstack_steps(target)) {
        Tensor step_weights;
        auto [next, feature] = attention_step(x, state, keys, encoded.states, input.src_padding_mask,
                                              recording ? &step_weights : nullptr);
        state = next;
        features.push_back(reshape(feature, {B, 1, -1}));
        if (recording) weights.push_back(reshape(step_weights.detach(), {B, 1, 1, -1}));
    }
    if (recording)   // one head: (B, 1, T, S), target rows over source columns
        input.observer->attention.push_back({.name = "attention", .kind = *options_.attention,
                                             .queries_from = SequenceSide::target, .keys_from = SequenceSide::source,
                                             .weights = concat(weights, 2)});
    return (*output_)(concat(features, 1));  // (B, T, V)
}

std::vector<Tensor*> RnnDecodeState::batch_tensors() {
    std::vector<Tensor*> tensors;
    for (RecurrentState& layer : layers) {
        tensors.push_back(&layer.h);
        if (layer.c.defined()) tensors.push_back(&layer.c);
    }
    for (Tensor* tensor : {&projected_keys, &encoder_states, &padding})
        if (tensor->defined()) tensors.push_back(tensor);
    return tensors;
}

DecodeState RnnSeq2Seq::begin_decode(const ModelInput& input, DecodeCache) {
    Encoded encoded = encode(input);
    auto state = std::make_unique<RnnDecodeState>();
    const bool carries_c = cells_carry_c();
    for (const RecurrentState& layer : encoded.decoder_init) state->layers.push_back({layer.h, carries_c ? layer.c : Tensor()});
    if (has_attention()) {
        state->padding = input.src_padding_mask.defined()
                             ? input.src_padding_mask
                             : Tensor::zeros({encoded.states.size(0), encoded.states.size(1)}, encoded.states.dtype());
        state->projected_keys = project_keys(encoded.states);
        state->encoder_states = encoded.states;
    }
    return {std::move(state), input.src_lengths};
}

Tensor RnnSeq2Seq::decode_step(DecodeState& state, const IndexTensor& prefix) {
    RnnDecodeState& s = model_state_of<RnnDecodeState>(state);
    const Tensor x = (*tgt_embedding_)(last_tokens(prefix));  // (B, E)
    const bool carries_c = cells_carry_c();
    if (has_attention()) {
        auto [next, feature] = attention_step(x, s.layers[0], s.projected_keys, s.encoder_states, s.padding, nullptr);
        s.layers[0] = {next.h, carries_c ? next.c : Tensor()};
        return (*output_)(feature);
    }
    Tensor layer_input = x;
    for (int64_t layer = 0; layer < decoder_->num_layers(); ++layer) {
        RecurrentState& layer_state = s.layers[static_cast<std::size_t>(layer)];
        const RecurrentState next = decoder_->cell(layer).step(layer_input, layer_state);
        layer_state = {next.h, carries_c ? next.c : Tensor()};
        layer_input = next.h;
    }
    return (*output_)(layer_input);  // (B, V)
}

}  // namespace tf
