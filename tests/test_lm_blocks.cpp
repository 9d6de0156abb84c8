// A language model whose "model.block" is a bare registry attention layer is still an attention
// model to the rest of the framework: analysis finds its maps and the temperature curriculum reaches it.
#include "catch.h"
#include <cmath>

#include "autograd/tape.h"
#include "models/build.h"

using namespace tf;

TEST_CASE("lm with a bare registry attention block: maps are recorded and the temperature scale applies", "[unit]") {
    // Any registered layer that records its weights: the framework's attention (2 heads), every one of
    // its kernels that forms weights, and the worked example of docs/extending.md (1 head).
    const auto [block, heads] = GENERATE(
        std::make_pair(config::Json{{"type", "multi_head_attention"}, {"heads", 2}}, 2),
        std::make_pair(config::Json{{"type", "multi_head_attention"}, {"heads", 2}, {"kernel", "tiled"}}, 2),
        std::make_pair(config::Json{{"type", "alibi_attention"}, {"slope", 0.25}}, 1));
    INFO(block.dump());
    const config::Json section = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 2}, {"max_length", 16},
                                  {"dropout", 0.0}, {"block", block}};
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
    CHECK(maps[1].name == "blocks.layers.1");
    CHECK(maps[0].weights.shape() == Shape{1, heads, 5, 5});

    ForwardObserver sharper{.temperature_scale = 0.25};
    input.observer = &sharper;
    CHECK(model->forward(input).to_vector() != logits);   // sharper attention, other logits
    input.observer = nullptr;
    // No observer: τ as configured. Recording runs the readable composed softmax, the plain
    // forward the fused kernel, so the two agree to float rounding, not bit for bit.
    const auto unobserved = model->forward(input).to_vector();
    REQUIRE(unobserved.size() == logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i) CHECK(std::abs(unobserved[i] - logits[i]) < 1e-5 * (1 + std::abs(logits[i])));
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
