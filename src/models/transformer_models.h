// The attention models:
//   TransformerSeq2Seq  encoder-decoder (W1; the poetry autoencoder when tgt = src):
//       x = E_src[src]·(√C if scaled) + PE,  memory = Encoder(x)
//       y = E_tgt[tgt_in]·(√C if scaled) + PE,  h = Decoder(y, memory) (causal self-attention,
//       cross-attention over memory),  logits = W_out h + b_out
//   DecoderLM           decoder-only language model (W4): x = E[tgt_in] + P, h = causal blocks(x),
//       logits = W_out LN(h) + b_out; "block" may name any registered layer for the blocks
// Exact parameter names and shapes: docs/models.md.
#pragma once
#include <memory>
#include <span>
#include <string>

#include "config/json_reader.h"
#include "layers/embedding.h"
#include "layers/positional.h"
#include "models/build_context.h"
#include "models/model.h"
#include "models/transformer_stack.h"

namespace tf {

// How token positions enter the embeddings: "positions" in configs.
enum class PositionKind { sinusoidal, learned };
inline constexpr EnumName<PositionKind> kPositionKindNames[] = {{PositionKind::sinusoidal, "sinusoidal"},
                                                                {PositionKind::learned, "learned"}};
inline std::span<const EnumName<PositionKind>> enum_names(PositionKind) { return kPositionKindNames; }

struct TransformerOptions {
    int64_t d_model = 128, heads = 4, kv_heads = 0;
    int64_t encoder_layers = 2, decoder_layers = 2;  // seq2seq
    int64_t layers = 4;                              // language model
    int64_t ffn_hidden = 0;                          // 0 = 4·d_model
    Activation activation = Activation::relu;
    double dropout = 0.1;
    double attention_dropout = 0.0;
    bool norm_first = false;
    bool final_norm = true;
    std::string norm = kDefaultNorm;       // every block's norms and the final norm: a name of the norm table
    PositionKind positions = PositionKind::sinusoidal;
    bool scale_embeddings = true;          // multiply embeddings by √C before adding positions
    // Layer-registry choices: every block's "ffn" and "self_attention" (transformer_block.h), and the
    // language model's "block", built for every one of `layers` in place of the transformer block.
    LayerChoice ffn{}, self_attention{}, custom_block{};
    TransformerBlockOptions block() const;
};

TransformerOptions read_transformer_options(config::JsonReader& section, bool language_model);

// Token embeddings plus positions, then dropout: the input side both models share.
class EmbeddingWithPositions : public Module {
public:
    EmbeddingWithPositions(const TransformerOptions& options, const ModelBuildContext& build, Rng& rng);
    // ids (B, T) at positions offset … offset + T − 1 (a cached decoder feeds only its new tokens).
    Tensor forward(const IndexTensor& ids, const std::function<Tensor(Tensor)>& probe, int64_t offset = 0) const;

private:
    std::shared_ptr<Embedding> tokens_;
    std::shared_ptr<SinusoidalPositionalEncoding> sinusoidal_;
    std::shared_ptr<LearnedPositionalEncoding> learned_;
    std::shared_ptr<Dropout> dropout_;
    double scale_;
};

// The key/value caches of a transformer's decoder blocks (null: the prefix is re-run at every
// step), and how many prefix tokens they hold.
struct TransformerStepCaches {
    std::unique_ptr<StepCaches> blocks;
    int64_t tokens_seen = 0;
    std::vector<Tensor*> batch_tensors() const { return blocks ? blocks->batch_tensors() : std::vector<Tensor*>{}; }
};

// What the encoder-decoder keeps between decoding steps: the encoded source and, decoding with a
// cache, each decoder block's self-attention keys and values (one more position per step) and its
// cross-attention keys and values of the memory (computed at the first step, then only read).
struct TransformerDecodeState : ModelDecodeState {
    Tensor memory;          // (B, S, C) the encoder's output
    Tensor memory_padding;  // (B, S) f32, 1 = padding
    TransformerStepCaches cache;
    std::vector<Tensor*> batch_tensors() override;
};

// What the decoder-only LM keeps between decoding steps: each block's keys and values.
struct LmDecodeState : ModelDecodeState {
    TransformerStepCaches cache;
    std::vector<Tensor*> batch_tensors() override { return cache.batch_tensors(); }
};

class TransformerSeq2Seq : public SequenceModel {
public:
    TransformerSeq2Seq(const TransformerOptions& options, const ModelBuildContext& build);
    Tensor forward(const ModelInput& input) override;
    DecodeState begin_decode(const ModelInput& input, DecodeCache cache) override;
    Tensor decode_step(DecodeState& state, const IndexTensor& prefix) override;
    int64_t vocab_size() const override { return vocab_size_; }

private:
    Tensor encode(const ModelInput& input);
    Tensor decode(const IndexTensor& tgt_in, const Tensor& tgt_padding, const Tensor& memory, const Tensor& memory_padding,
                  ForwardObserver* observer);

    int64_t vocab_size_;
    std::shared_ptr<EmbeddingWithPositions> src_embedding_, tgt_embedding_;
    std::shared_ptr<TransformerStack> encoder_, decoder_;
    std::shared_ptr<Linear> output_;
};

class DecoderLM : public SequenceModel {
public:
    DecoderLM(const TransformerOptions& options, const ModelBuildContext& build);
    Tensor forward(const ModelInput& input) override;
    DecodeState begin_decode(const ModelInput& input, DecodeCache cache) override;
    Tensor decode_step(DecodeState& state, const IndexTensor& prefix) override;
    int64_t vocab_size() const override { return vocab_size_; }
    bool is_language_model() const override { return true; }

private:
    Tensor logits_for(const IndexTensor& tokens, const Tensor& padding, ForwardObserver* observer);

    int64_t vocab_size_;
    std::shared_ptr<EmbeddingWithPositions> embedding_;
    std::shared_ptr<TransformerStack> blocks_;
    std::shared_ptr<Linear> output_;
};

}  // namespace tf
