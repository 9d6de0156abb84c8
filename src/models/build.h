// Models by name: the "model" section of a run config picks the architecture and its sizes.
//   "transformer"   encoder-decoder (transformer_models.h)
//   "lm"            decoder-only language model (transformer_models.h)
//   "rnn_seq2seq"   RNN/GRU/LSTM encoder-decoder, optional additive or Luong attention (rnn_seq2seq.h)
// Every key is documented in docs/config.md; the exact math and parameter names in docs/models.md.
#pragma once
#include <memory>
#include <span>

#include "config/json_reader.h"
#include "models/build_context.h"
#include "models/model.h"
#include "models/rnn_seq2seq.h"
#include "models/transformer_models.h"

namespace tf {

// The architecture: "type" in configs.
enum class ModelKind { transformer, lm, rnn_seq2seq };
inline constexpr EnumName<ModelKind> kModelKindNames[] = {
    {ModelKind::transformer, "transformer"}, {ModelKind::lm, "lm"}, {ModelKind::rnn_seq2seq, "rnn_seq2seq"}};
inline std::span<const EnumName<ModelKind>> enum_names(ModelKind) { return kModelKindNames; }

struct ModelConfig {
    ModelKind type = ModelKind::transformer;
    int64_t max_length = 512;  // positions the model covers (transformers)
    RnnSeq2SeqOptions rnn;
    TransformerOptions transformer;
    bool is_language_model() const { return type == ModelKind::lm; }
};

// Reads and validates the section (unknown keys are errors naming their path).
ModelConfig read_model_config(config::JsonReader& section);
std::shared_ptr<SequenceModel> build_model(const ModelConfig& config, ModelBuildContext build);

}  // namespace tf
