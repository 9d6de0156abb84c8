// Models by name: the "model" section of a run config picks the architecture and its sizes.
//   "rnn_seq2seq"  RNN/GRU/LSTM encoder-decoder, optional additive or Luong attention (rnn_seq2seq.h)
#pragma once
#include <memory>
#include <string>

#include "config/json_reader.h"
#include "models/build_context.h"
#include "models/model.h"
#include "models/rnn_seq2seq.h"

namespace tf {

struct ModelConfig {
    std::string type;
    RnnSeq2SeqOptions rnn;
    bool is_language_model() const { return false; }
};

// Reads and validates the section (unknown keys are errors naming their path).
ModelConfig read_model_config(config::JsonReader& section);
std::shared_ptr<SequenceModel> build_model(const ModelConfig& config, const ModelBuildContext& build);

}  // namespace tf
