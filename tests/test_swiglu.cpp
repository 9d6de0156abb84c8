// The SwiGLU feed-forward: central differences in f64, a value by hand, its parameter count against
// the two-matrix FFN's, and transformer blocks and models that take it by name ("ffn").
#include "catch.h"

#include <cmath>

#include "autograd/ops.h"
#include "layers/swiglu_feed_forward.h"
#include "layers/transformer_block.h"
#include "models/build.h"
#include "helpers.h"
#include "module_gradcheck.h"
#include "layers/builtin_layers.h"

using namespace tf;
using tf::test::random_sequence;

namespace {

std::shared_ptr<SequenceLayer> from_registry(const config::Json& block, int64_t width, Rng& rng) {
    return builtin_layers().create(block, "ffn", {.width = width, .init_rng = &rng, .dtype = DType::f64});
}

}  // namespace

TEST_CASE("swiglu: input and every parameter match central differences (f64)", "[gradcheck]") {
    Rng rng(3);
    SwiGluFeedForward ffn(4, 5, InitScheme{InitKind::normal, 0.5}, rng, DType::f64);
    test::require_module_gradcheck(ffn, [&](const std::vector<Tensor>& in) { return ffn(in[0], {}); },
                                   {random_sequence(2, 3, 4, 7)});
}

TEST_CASE("swiglu: one input, one hidden unit, by hand", "[unit]") {
    // W_gate = 2, W_up = −3, W_down = 0.5, x = 0.7:   y = 0.5 · (1.4·σ(1.4)) · (−2.1)
    Rng rng(1);
    SwiGluFeedForward ffn(1, 1, InitScheme{}, rng, DType::f64);
    auto state = ffn.state_dict();
    state.at("gate_proj.weight").data<double>()[0] = 2.0;
    state.at("up_proj.weight").data<double>()[0] = -3.0;
    state.at("down_proj.weight").data<double>()[0] = 0.5;
    const double a = 1.4, expected = 0.5 * (a / (1 + std::exp(-a))) * -2.1;
    CHECK(ffn(Tensor::from_data({0.7}, {1, 1, 1}, DType::f64), {}).item() == Approx(expected).epsilon(1e-14));
}

TEST_CASE("swiglu at its default width has the two-matrix FFN's parameter count, 8C²", "[property]") {
    Rng rng(2);
    const auto swiglu = from_registry({{"type", "swiglu"}}, 48, rng);
    const auto plain = from_registry({{"type", "feed_forward"}}, 48, rng);
    CHECK(swiglu->parameter_count() == 3 * 48 * 128);   // hidden ⌊8·48/3⌋ = 128, no biases
    CHECK(swiglu->parameter_count() == 8 * 48 * 48);
    CHECK(plain->parameter_count() == 8 * 48 * 48 + 4 * 48 + 48);   // the same, plus its biases
}

TEST_CASE("transformer blocks and models take their feed-forward by name", "[unit]") {
    Rng rng(4);
    const auto block = builtin_layers().create(
        {{"type", "transformer_encoder_block"}, {"heads", 2}, {"ffn", {{"type", "swiglu"}, {"hidden", 6}}}}, "model.block",
        {.width = 4, .init_rng = &rng, .dtype = DType::f64});
    std::vector<std::string> names;
    for (const auto& [name, parameter] : block->named_parameters()) names.push_back(name);
    CHECK(std::count(names.begin(), names.end(), "ffn.gate_proj.weight") == 1);
    CHECK(std::count(names.begin(), names.end(), "ffn.linear1.weight") == 0);
    CHECK((*block)(random_sequence(2, 3, 4, 5), {}).shape() == Shape{2, 3, 4});

    const config::Json model = {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"max_length", 16},
                                {"ffn", {{"type", "swiglu"}}}};
    config::JsonReader reader(model, "model");
    ModelBuildContext build;
    build.dropout_rng = std::make_shared<Rng>(5);
    build.vocab_size = 10;
    CHECK(build_model(read_model_config(reader), build)->state_dict().count("decoder.layers.1.ffn.down_proj.weight") == 1);

    config::Json misspelt = model;
    misspelt["ffn"] = {{"type", "swiglu"}, {"hiden", 6}};
    config::JsonReader bad(misspelt, "model");
    CHECK_THROWS_WITH(read_model_config(bad), Catch::Contains("model.ffn.hiden"));
}
