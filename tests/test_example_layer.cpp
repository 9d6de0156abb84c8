// The worked example of docs/extending.md: the local convolution mixer, held to central differences
// in f64, its promise (y_t reads exactly x_{t−k+1} … x_t), its registry entry, and a language model
// whose blocks are named by "model.block".
#include "catch.h"

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/examples/local_conv_mixer.h"
#include "models/build.h"
#include "helpers.h"
#include "module_gradcheck.h"
#include "layers/builtin_layers.h"

using namespace tf;
using tf::test::random_sequence;

TEST_CASE("local_conv_mixer: input and every parameter match central differences (f64)", "[gradcheck]") {
    Rng rng(7);
    LocalConvMixer mixer(3, 3, InitScheme{InitKind::normal, 0.5}, rng, DType::f64);
    const Tensor x = random_sequence(2, 5, 3, 11);
    test::require_module_gradcheck(mixer, [&](const std::vector<Tensor>& in) { return mixer(in[0], {}); }, {x});
}

TEST_CASE("local_conv_mixer: output t changes exactly when one of inputs t-k+1..t changes", "[property]") {
    const int64_t T = 9, k = 3, changed = 4;
    Rng rng(5);
    LocalConvMixer mixer(4, k, InitScheme{InitKind::xavier_uniform, 0.0}, rng, DType::f64);
    NoGradGuard no_grad;
    const Tensor x = random_sequence(1, T, 4, 3);
    Tensor x_changed = x.clone();
    // Unequal per channel: the layer norm in front removes a change that shifts all channels alike.
    for (int64_t c = 0; c < 4; ++c) x_changed.data<double>()[changed * 4 + c] += 0.5 * double(c + 1) * (c % 2 ? -1 : 1);
    const auto y = mixer(x, {}).to_vector(), y_changed = mixer(x_changed, {}).to_vector();
    for (int64_t t = 0; t < T; ++t) {
        bool same = true;
        for (int64_t c = 0; c < 4; ++c) same = same && y[t * 4 + c] == y_changed[t * 4 + c];
        INFO("output position " << t);
        CHECK(same == (t < changed || t >= changed + k));
    }
}

TEST_CASE("local_conv_mixer: built from the registry with its parameters named and shaped", "[unit]") {
    Rng rng(1);
    const LayerBuildContext build{.width = 8, .init_rng = &rng};
    const auto layer = builtin_layers().create({{"type", "local_conv_mixer"}, {"kernel_size", 3}}, "model.block", build);
    std::map<std::string, Shape> shapes;
    for (const auto& [name, tensor] : layer->named_parameters()) shapes[name] = tensor.shape();
    const std::map<std::string, Shape> expected{{"norm.weight", {8}},         {"norm.bias", {8}},
                                                {"conv_weight", {3, 8}},      {"conv_bias", {8}},
                                                {"in_proj.weight", {16, 8}},  {"in_proj.bias", {16}},
                                                {"out_proj.weight", {8, 8}},  {"out_proj.bias", {8}}};
    CHECK(shapes == expected);
    REQUIRE_THROWS_WITH(builtin_layers().create({{"type", "local_conv_mixer"}, {"kernel", 3}}, "model.block", build),
                        Catch::Contains("model.block.kernel"));
    REQUIRE_THROWS_WITH(builtin_layers().create({{"type", "local_conv_mixer"}, {"kernel_size", 0}}, "model.block", build),
                        Catch::Contains("model.block.kernel_size"));
}

TEST_CASE("lm with model.block: every layer is the named registry layer, and the model stays causal", "[integration]") {
    const config::Json section = {{"type", "lm"},     {"d_model", 8},   {"heads", 2},
                                  {"layers", 2},      {"max_length", 16}, {"dropout", 0.0},
                                  {"block", {{"type", "local_conv_mixer"}, {"kernel_size", 2}}}};
    config::JsonReader reader(section, "model");
    const ModelConfig config = read_model_config(reader);
    ModelBuildContext build;
    build.vocab_size = 12;
    build.seed = 2;
    const auto model = build_model(config, build);
    const auto state = model->state_dict();
    CHECK(state.count("blocks.layers.1.conv_weight") == 1);
    CHECK(state.count("blocks.norm.weight") == 1);
    CHECK(state.count("blocks.layers.0.self_attn.q_proj.weight") == 0);

    NoGradGuard no_grad;
    ModelInput input, changed;
    input.tgt_in = IndexTensor({1, 4, 5, 6, 7}, {1, 5});
    changed.tgt_in = IndexTensor({1, 4, 5, 9, 9}, {1, 5});  // positions 3 and 4 differ
    const auto logits = model->forward(input).to_vector(), logits_changed = model->forward(changed).to_vector();
    REQUIRE(logits.size() == 5 * 12);
    for (std::size_t i = 0; i < 3 * 12; ++i) CHECK(logits[i] == logits_changed[i]);  // earlier positions
    // ... and positions 3 and 4 read their own tokens: a model that ignored its input would pass the above.
    for (std::size_t t = 3; t < 5; ++t) {
        bool differs = false;
        for (std::size_t v = 0; v < 12; ++v) differs = differs || logits[t * 12 + v] != logits_changed[t * 12 + v];
        INFO("position " << t);
        CHECK(differs);
    }

    const config::Json typo = {{"type", "lm"}, {"block", {{"type", "local_conv_mixer"}, {"kernel_sise", 2}}}};
    config::JsonReader typo_reader(typo, "model");
    REQUIRE_THROWS_WITH(read_model_config(typo_reader), Catch::Contains("model.block.kernel_sise"));
}
