// RNN encoder-decoder, with or without attention (Sutskever et al. 2014 and Cho et al. 2014; with
// attention Bahdanau et al. 2015), W2/W3 of the reference workloads. The encoder is an
// RNN/GRU/LSTM layer over the source embeddings.
//   without attention (W3):  the decoder layer starts from the encoder's final state and reads the
//                            target embeddings;  logits_t = W_out s_t
//   with attention (W2):     s_0 = tanh(W_init h_S); each step attends over all encoder states
//                            (context_t from s_{t−1}), then s_t = cell([x_t; context_t], s_{t−1});
//                            logits_t = W_out [s_t; context_t; x_t]
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "config/json_reader.h"
#include "layers/attention/additive_attention.h"
#include "layers/embedding.h"
#include "layers/recurrent/recurrent_layer.h"
#include "models/build_context.h"
#include "models/model.h"

namespace tf {

// What the RNN encoder-decoder keeps between decoding steps.
struct RnnDecodeState : ModelDecodeState {
    // The decoder's state per layer (one layer with attention): h (B, H), and c (B, H) for an LSTM.
    std::vector<RecurrentState> layers;
    // With attention only (else undefined): what each step attends over.
    Tensor projected_keys;  // (B, S, ·) the keys the attention precomputes from the encoder states
    Tensor encoder_states;  // (B, S, H·dirs)
    Tensor padding;         // (B, S) f32, 1 = padding
    std::vector<Tensor*> batch_tensors() override;
};

struct RnnSeq2SeqOptions {
    std::string cell = "gru";         // a name of the cell table (layers/recurrent/cell_registry.h)
    int64_t embedding_size = 128;     // E
    int64_t hidden_size = 128;        // H
    int64_t num_layers = 1;           // encoder layers; also decoder layers without attention
    bool bidirectional_encoder = false;
    // How the decoder reads the encoder states: a name of the decoder-attention table
    // (layers/attention/decoder_attention_registry.h); none: only through its initial state.
    std::optional<std::string> attention{};
    double dropout = 0.0;             // between stacked RNN layers
};

RnnSeq2SeqOptions read_rnn_seq2seq_options(config::JsonReader& section);

class RnnSeq2Seq : public SequenceModel {
public:
    RnnSeq2Seq(const RnnSeq2SeqOptions& options, const ModelBuildContext& build);
    Tensor forward(const ModelInput& input) override;
    // The decoder steps one cell per token whatever `cache` says: its state is its only memory.
    DecodeState begin_decode(const ModelInput& input, DecodeCache cache) override;
    Tensor decode_step(DecodeState& state, const IndexTensor& prefix) override;
    int64_t vocab_size() const override { return vocab_size_; }

private:
    struct Encoded {
        Tensor states;                          // (B, S, H·dirs): what attention reads
        std::vector<RecurrentState> decoder_init;  // one per decoder layer
    };
    Encoded encode(const ModelInput& input);
    bool has_attention() const { return attention_ != nullptr; }
    // Whether the cells carry an LSTM-style memory c besides h.
    bool cells_carry_c() const { return encoder_->cell(0).has_cell_state(); }
    AttentionContext attend(const Tensor& query, const Tensor& projected_keys, const Tensor& states,
                            const Tensor& padding) const;
    Tensor project_keys(const Tensor& states) const;
    // One attention-decoder step: x (B, E) → (new state, output features [s; context; x]).
    std::pair<RecurrentState, Tensor> attention_step(const Tensor& x, const RecurrentState& state, const Tensor& keys,
                                                     const Tensor& states, const Tensor& padding, Tensor* weights);

    RnnSeq2SeqOptions options_;
    int64_t vocab_size_;
    std::shared_ptr<Embedding> src_embedding_, tgt_embedding_;
    std::shared_ptr<RecurrentLayer> encoder_, decoder_;   // decoder_ only without attention
    std::shared_ptr<RecurrentCell> decoder_cell_;          // only with attention
    std::shared_ptr<Linear> bridge_;                       // encoder final state → decoder s_0, when needed
    std::shared_ptr<DecoderStepAttention> attention_;  // only with attention
    std::shared_ptr<Linear> output_;
};

}  // namespace tf
