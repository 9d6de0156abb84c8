// The model factory.
#include "models/build.h"

namespace tf {

ModelConfig read_model_config(config::JsonReader& section) {
    ModelConfig config;
    config.type = section.choice("type", {"rnn_seq2seq"});
    config.rnn = read_rnn_seq2seq_options(section);
    section.finish();
    return config;
}

std::shared_ptr<SequenceModel> build_model(const ModelConfig& config, const ModelBuildContext& build) {
    std::shared_ptr<SequenceModel> model = std::make_shared<RnnSeq2Seq>(config.rnn, build);
    model->assign_names();
    return model;
}

}  // namespace tf
