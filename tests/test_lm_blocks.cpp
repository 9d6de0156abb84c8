// A language model whose "model.block" is a bare registry attention layer is still an attention
// model to the rest of the framework: analysis finds its maps and the temperature curriculum reaches it.
#include "catch.h"

#include "autograd/tape.h"
#include "models/build.h"

using namespace tf;

TEST_CASE("lm with a bare multi_head_attention block: maps are collected and the temperature scale applies", "[unit]") {
    const config::Json section = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 2}, {"max_length", 16},
                                  {"dropout", 0.0}, {"block", {{"type", "multi_head_attention"}, {"heads", 2}}}};
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = 12;
    build.seed = 3;
    const auto model = build_model(read_model_config(reader), build);
    NoGradGuard no_grad;
    ModelInput input;
    input.tgt_in = IndexTensor({1, 4, 5, 6, 7}, {1, 5});

    ForwardObserver recorder{.record_attention = true};
    input.observer = &recorder;
    const auto logits = model->forward(input).to_vector();
    const auto& maps = recorder.attention;
    REQUIRE(maps.size() == 2);   // one per layer
    CHECK(maps[0].name == "blocks.layers.0");
    CHECK(maps[0].weights.shape() == Shape{1, 2, 5, 5});

    ForwardObserver sharper{.temperature_scale = 0.25};
    input.observer = &sharper;
    CHECK(model->forward(input).to_vector() != logits);   // sharper attention, other logits
}

TEST_CASE("lm: a block with dropout passes config check and trains with it", "[unit]") {
    // The config is checked by building the block once; with dropout > 0 that build needs a generator.
    const config::Json section = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"max_length", 16},
                                  {"block", {{"type", "transformer_encoder_block"}, {"heads", 2}, {"dropout", 0.2}}}};
    config::JsonReader reader(section, "model");
    const ModelConfig config = read_model_config(reader);
    ModelBuildContext build;
    build.dropout_rng = std::make_shared<Rng>(5);
    build.vocab_size = 12;
    const auto model = build_model(config, build);
    ModelInput input;
    input.tgt_in = IndexTensor({1, 4, 5, 6, 7}, {1, 5});
    NoGradGuard no_grad;
    const auto training = model->forward(input).to_vector();
    model->eval();
    CHECK(model->forward(input).to_vector() != training);   // the dropout acts while training only
}
