// The transformer encoder-decoder and the decoder-only language model.
#include "models/transformer_models.h"

#include <cmath>

#include "autograd/ops.h"
#include "layers/builtin_layers.h"

namespace tf {

namespace {

// What a registry block of the language model is built with: the model width, its init and RNGs.
LayerBuildContext block_build_context(const TransformerOptions& options, Rng& rng, std::shared_ptr<Rng> dropout_rng,
                                      DType dtype) {
    return {.width = options.d_model, .init_rng = &rng, .dropout_rng = std::move(dropout_rng),
            .init = InitScheme{InitKind::xavier_uniform, 0.0}, .dtype = dtype};
}

// The layer-registry choice under `key`, built once here so `config check` names a bad type or key
// with its path, not the trainer (with generators of its own: a layer with dropout needs one).
LayerChoice read_checked_choice(config::JsonReader& section, const std::string& key, const TransformerOptions& o) {
    LayerChoice choice = LayerChoice::read(section, key, &builtin_layers());
    if (!choice.chosen()) return choice;
    Rng probe_rng(0);
    choice.create(block_build_context(o, probe_rng, std::make_shared<Rng>(0), DType::f32));
    return choice;
}

// The decoder's caches, if `cache` asks for them and every block can step; a stack with a block
// that cannot re-runs the prefix instead, or is refused when the cache was asked for explicitly.
TransformerStepCaches step_caches_for(const TransformerStack& decoder, DecodeCache cache) {
    if (cache == DecodeCache::off) return {};
    if (decoder.step_mode() == StepMode::reruns_prefix) {
        if (cache == DecodeCache::on)
            throw ValueError("decode.cache \"on\": " + decoder.step_problem() +
                             " (it keeps no key/value cache); use \"auto\" to re-run the prefix at each step instead");
        return {};
    }
    return {decoder.make_step_caches(), 0};
}

// The last of x's positions: (B, t, F) → (B, F).
Tensor last_position(const Tensor& x) {
    const int64_t t = x.size(1);
    return reshape(slice(x, 1, t - 1, t), {x.size(0), x.size(2)});
}

// The cached step of both models: the prefix tokens the caches have not seen, at their own
// positions, through the stack; the hidden state (B, C) of the last of them.
Tensor step_new_tokens(TransformerStepCaches& cache, const EmbeddingWithPositions& embedding, const TransformerStack& stack,
                       const IndexTensor& prefix, const SequenceContext& context) {
    const int64_t seen = cache.tokens_seen, t = prefix.shape[1];
    const Tensor x = embedding.forward(token_columns(prefix, seen, t), nullptr, seen);  // (B, t − seen, C)
    const Tensor h = stack.forward_step(x, context, *cache.blocks);
    cache.tokens_seen = t;
    return last_position(h);
}

}  // namespace

std::vector<Tensor*> TransformerDecodeState::batch_tensors() {
    std::vector<Tensor*> tensors = {&memory, &memory_padding};
    for (Tensor* tensor : cache.batch_tensors()) tensors.push_back(tensor);
    return tensors;
}

TransformerBlockOptions TransformerOptions::block() const {
    TransformerBlockOptions options;
    options.attention.d_model = d_model;
    options.attention.heads = heads;
    options.attention.kv_heads = kv_heads;
    options.attention.dropout = attention_dropout;
    options.ffn_hidden = ffn_hidden;
    options.activation = activation;
    options.dropout = dropout;
    options.norm_first = norm_first;
    options.norm = norm;
    options.ffn = ffn;
    options.self_attention = self_attention;
    return options;
}

TransformerOptions read_transformer_options(config::JsonReader& section, bool language_model) {
    TransformerOptions o;
    if (language_model) o.norm_first = true, o.activation = Activation::gelu, o.positions = PositionKind::learned, o.scale_embeddings = false;
    o.d_model = section.integer("d_model", o.d_model, {.min = 1, .max = 65536});
    o.heads = section.integer("heads", o.heads, {.min = 1, .max = 1024});
    o.kv_heads = section.integer("kv_heads", o.kv_heads, {.min = 0, .max = 1024});
    if (language_model) {
        o.layers = section.integer("layers", o.layers, {.min = 1, .max = 128});
    } else {
        o.encoder_layers = section.integer("encoder_layers", o.encoder_layers, {.min = 1, .max = 128});
        o.decoder_layers = section.integer("decoder_layers", o.decoder_layers, {.min = 1, .max = 128});
    }
    o.ffn_hidden = section.integer("ffn_hidden", o.ffn_hidden, {.min = 0, .max = 1 << 20});
    o.activation = section.choice("activation", o.activation);
    o.dropout = section.number("dropout", o.dropout, 0.0, 0.99);
    o.attention_dropout = section.number("attention_dropout", o.attention_dropout, 0.0, 0.99);
    o.norm_first = section.boolean("norm_first", o.norm_first);
    o.final_norm = section.boolean("final_norm", o.final_norm);
    o.norm = section.choice("norm", o.norm, norm_names());
    o.positions = section.choice("positions", o.positions);
    o.scale_embeddings = section.boolean("scale_embeddings", o.scale_embeddings);
    if (o.d_model % o.heads != 0)
        throw ConfigError(section.path_of("d_model") + ": " + std::to_string(o.d_model) + " is not divisible by heads (" +
                          std::to_string(o.heads) + ")");
    if (o.kv_heads != 0 && o.heads % o.kv_heads != 0)
        throw ConfigError(section.path_of("kv_heads") + ": heads (" + std::to_string(o.heads) + ") is not divisible by " +
                          std::to_string(o.kv_heads));
    o.ffn = read_checked_choice(section, "ffn", o);
    o.self_attention = read_checked_choice(section, "self_attention", o);
    if (language_model) o.custom_block = read_checked_choice(section, "block", o);
    return o;
}

EmbeddingWithPositions::EmbeddingWithPositions(const TransformerOptions& options, const ModelBuildContext& build, Rng& rng)
    : scale_(options.scale_embeddings ? std::sqrt(static_cast<double>(options.d_model)) : 1.0) {
    tokens_ = register_module("embedding", std::make_shared<Embedding>(build.vocab_size, options.d_model, build.pad_id,
                                                                        InitScheme{InitKind::normal, 1.0}, rng, build.dtype));
    if (options.positions == PositionKind::learned)
        learned_ = register_module("positions", std::make_shared<LearnedPositionalEncoding>(build.max_length, options.d_model,
                                                                                             InitScheme{InitKind::normal, 0.02}, rng, build.dtype));
    else
        sinusoidal_ = register_module("positions", std::make_shared<SinusoidalPositionalEncoding>(
                                                       build.max_length, options.d_model,
                                                       SinusoidalPositionalEncoding::InputScale::none, build.dtype));
    dropout_ = register_module("dropout", std::make_shared<Dropout>(options.dropout, build.dropout_rng));
}

// x = E[ids]·scale + PE[offset : offset + T], then dropout; `probe` sees x before the dropout.
Tensor EmbeddingWithPositions::forward(const IndexTensor& ids, const std::function<Tensor(Tensor)>& probe,
                                       int64_t offset) const {
    Tensor x = (*tokens_)(ids);  // (B, T, C)
    if (scale_ != 1.0) x = x * scale_;
    x = learned_ ? (*learned_)(x, offset) : (*sinusoidal_)(x, offset);
    return (*dropout_)(probe ? probe(x) : x);
}

// ── encoder-decoder ────────────────────────────────────────────────────

TransformerSeq2Seq::TransformerSeq2Seq(const TransformerOptions& options, const ModelBuildContext& build)
    : SequenceModel(build.dropout_rng), vocab_size_(build.vocab_size) {
    Rng rng(build.seed);
    const InitScheme init{InitKind::xavier_uniform, 0.0};
    src_embedding_ = register_module("src_embedding", std::make_shared<EmbeddingWithPositions>(options, build, rng));
    tgt_embedding_ = register_module("tgt_embedding", std::make_shared<EmbeddingWithPositions>(options, build, rng));
    encoder_ = register_module("encoder", std::make_shared<TransformerStack>(
                                              options.encoder_layers, TransformerBlockKind::encoder, options.block(),
                                              options.final_norm, build.dropout_rng, init, rng, build.dtype));
    decoder_ = register_module("decoder", std::make_shared<TransformerStack>(
                                              options.decoder_layers, TransformerBlockKind::decoder, options.block(),
                                              options.final_norm, build.dropout_rng, init, rng, build.dtype));
    output_ = register_module("output", std::make_shared<Linear>(options.d_model, build.vocab_size, Bias::learned, init, rng,
                                                                 build.dtype));
}

Tensor TransformerSeq2Seq::encode(const ModelInput& input) {
    ForwardObserver* observer = input.observer;
    const Tensor x = src_embedding_->forward(input.src, [observer](Tensor t) { return probe(t, observer); });  // (B, S, C)
    const SequenceContext context{.padding_mask = input.src_padding_mask, .side = SequenceSide::source, .observer = observer};
    return encoder_->forward(x, context);  // memory (B, S, C)
}

Tensor TransformerSeq2Seq::decode(const IndexTensor& tgt_in, const Tensor& tgt_padding, const Tensor& memory,
                                  const Tensor& memory_padding, ForwardObserver* observer) {
    const SequenceContext context{.padding_mask = tgt_padding, .causal = true, .memory = memory,
                                  .memory_padding_mask = memory_padding, .observer = observer};
    return (*output_)(decoder_->forward(tgt_embedding_->forward(tgt_in, nullptr), context));  // (B, T, V)
}

Tensor TransformerSeq2Seq::forward(const ModelInput& input) {
    return decode(input.tgt_in, input.tgt_padding_mask, encode(input), input.src_padding_mask, input.observer);
}

DecodeState TransformerSeq2Seq::begin_decode(const ModelInput& input, DecodeCache cache) {
    auto state = std::make_unique<TransformerDecodeState>();
    state->memory = encode(input);
    const Tensor& memory = state->memory;
    state->memory_padding = input.src_padding_mask.defined()
                                ? input.src_padding_mask
                                : Tensor::zeros({memory.size(0), memory.size(1)}, memory.dtype());
    state->cache = step_caches_for(*decoder_, cache);
    return {std::move(state), input.src_lengths};
}

// With a cache, only the tokens the decoder has not seen go through it, at their own positions;
// without, the decoder runs again over the whole prefix. Either way the last position is read.
Tensor TransformerSeq2Seq::decode_step(DecodeState& state, const IndexTensor& prefix) {
    TransformerDecodeState& s = model_state_of<TransformerDecodeState>(state);
    if (!s.cache.blocks) return last_position(decode(prefix, Tensor(), s.memory, s.memory_padding, nullptr));
    const SequenceContext context{.causal = true, .memory = s.memory, .memory_padding_mask = s.memory_padding};
    return (*output_)(step_new_tokens(s.cache, *tgt_embedding_, *decoder_, prefix, context));  // (B, V)
}

// ── decoder-only language model ────────────────────────────────────────

DecoderLM::DecoderLM(const TransformerOptions& options, const ModelBuildContext& build)
    : SequenceModel(build.dropout_rng), vocab_size_(build.vocab_size) {
    Rng rng(build.seed);
    const InitScheme init{InitKind::xavier_uniform, 0.0};
    embedding_ = register_module("embedding", std::make_shared<EmbeddingWithPositions>(options, build, rng));
    if (!options.custom_block.chosen()) {
        blocks_ = register_module("blocks", std::make_shared<TransformerStack>(
                                                options.layers, TransformerBlockKind::encoder, options.block(),
                                                options.final_norm, build.dropout_rng, init, rng, build.dtype));
    } else {
        const LayerBuildContext context = block_build_context(options, rng, build.dropout_rng, build.dtype);
        const auto make_block = [&] { return options.custom_block.create(context); };
        blocks_ = register_module("blocks", std::make_shared<TransformerStack>(options.layers, make_block, options.d_model,
                                                                               options.final_norm, options.norm, 1e-5, build.dtype));
    }
    output_ = register_module("output", std::make_shared<Linear>(options.d_model, build.vocab_size, Bias::learned, init, rng,
                                                                 build.dtype));
}

Tensor DecoderLM::logits_for(const IndexTensor& tokens, const Tensor& padding, ForwardObserver* observer) {
    const SequenceContext context{.padding_mask = padding, .causal = true, .observer = observer};
    const Tensor x = embedding_->forward(tokens, [observer](Tensor t) { return probe(t, observer); });  // (B, T, C)
    return (*output_)(blocks_->forward(x, context));                                                  // (B, T, V)
}

Tensor DecoderLM::forward(const ModelInput& input) {
    return logits_for(input.tgt_in, input.tgt_padding_mask, input.observer);
}

DecodeState DecoderLM::begin_decode(const ModelInput&, DecodeCache cache) {
    auto state = std::make_unique<LmDecodeState>();
    state->cache = step_caches_for(*blocks_, cache);
    return {std::move(state), {}};
}

// As the encoder-decoder's step, with no memory: a prompt of several tokens goes through the blocks
// in one step, then one token per step.
Tensor DecoderLM::decode_step(DecodeState& state, const IndexTensor& prefix) {
    LmDecodeState& s = model_state_of<LmDecodeState>(state);
    if (!s.cache.blocks) return last_position(logits_for(prefix, Tensor(), nullptr));
    return (*output_)(step_new_tokens(s.cache, *embedding_, *blocks_, prefix, {.causal = true}));  // (B, V)
}

}  // namespace tf
