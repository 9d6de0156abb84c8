// The model factory.
#include "models/build.h"

namespace tf {

ModelConfig read_model_config(config::JsonReader& section) {
    ModelConfig config;
    config.type = section.choice<ModelKind>("type");
    if (config.type == ModelKind::rnn_seq2seq) {
        config.rnn = read_rnn_seq2seq_options(section);
    } else {
        config.max_length = section.integer("max_length", config.max_length, {.min = 1, .max = 1 << 20});
        config.transformer = read_transformer_options(section, config.is_language_model());
    }
    section.finish();
    return config;
}

std::shared_ptr<SequenceModel> build_model(const ModelConfig& config, ModelBuildContext build) {
    build.max_length = config.max_length;
    std::shared_ptr<SequenceModel> model;
    if (config.type == ModelKind::rnn_seq2seq) model = std::make_shared<RnnSeq2Seq>(config.rnn, build);
    else if (config.type == ModelKind::transformer) model = std::make_shared<TransformerSeq2Seq>(config.transformer, build);
    else model = std::make_shared<DecoderLM>(config.transformer, build);
    model->assign_names();
    return model;
}

}  // namespace tf
