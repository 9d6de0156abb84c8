// Transformer encoder/decoder blocks: gradchecks (pre-LN and post-LN, inputs and every parameter),
// the residual/norm placement, causality of the decoder, PyTorch-like names, the registry.
#include "catch.h"
#include <algorithm>
#include <cmath>

#include "attention_helpers.h"
#include "autograd/error.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/builtin_layers.h"
#include "layers/transformer_block.h"
#include "module_gradcheck.h"

using namespace tf;

namespace {

TransformerBlockOptions small_block(bool norm_first, Activation activation = Activation::relu) {
    return {.attention = {.d_model = 4, .heads = 2}, .ffn_hidden = 6, .activation = activation, .norm_first = norm_first};
}

template <class Block>
std::shared_ptr<Block> make_block(const TransformerBlockOptions& options, uint64_t seed, DType dtype = DType::f64) {
    Rng rng(seed);
    return std::make_shared<Block>(options, std::make_shared<Rng>(seed + 1), InitScheme{}, rng, dtype);
}

// Zeroes the weight and bias of every parameter whose name starts with one of `prefixes`.
void zero_parameters(Module& module, const std::vector<std::string>& prefixes) {
    for (auto& [name, parameter] : module.named_parameters())
        for (const std::string& prefix : prefixes)
            if (name.starts_with(prefix)) {
                Tensor target = parameter;
                for (int64_t i = 0; i < target.numel(); ++i) target.data<double>()[i] = 0.0;
            }
}

}  // namespace

TEST_CASE("encoder block: gradient w.r.t. input and every parameter, pre-LN and post-LN", "[gradcheck]") {
    const bool norm_first = GENERATE(true, false);
    const Activation activation = GENERATE(Activation::relu, Activation::gelu);
    INFO("norm_first " << norm_first << ", " << name_of(activation));
    auto block = make_block<TransformerEncoderBlock>(small_block(norm_first, activation), 31);
    test::randomize_parameters(*block, 32);
    Rng rng(33);
    const SequenceContext context{.padding_mask = test::padding_mask(3, {0, 1})};
    test::require_module_gradcheck(*block, [&](const std::vector<Tensor>& in) { return (*block)(in[0], context); },
                                   {test::random_tensor({2, 3, 4}, rng)});
}

TEST_CASE("decoder block: gradient w.r.t. target, memory and every parameter, pre-LN and post-LN", "[gradcheck]") {
    const bool norm_first = GENERATE(true, false);
    INFO("norm_first " << norm_first);
    auto block = make_block<TransformerDecoderBlock>(small_block(norm_first), 34);
    test::randomize_parameters(*block, 35);
    Rng rng(36);
    const Tensor memory_padding = test::padding_mask(4, {1, 0});
    test::require_module_gradcheck(*block, [&](const std::vector<Tensor>& in) {
        return (*block)(in[0], {.memory = in[1], .memory_padding_mask = memory_padding});
    }, {test::random_tensor({2, 3, 4}, rng), test::random_tensor({2, 4, 4}, rng)});
}

TEST_CASE("post-LN ends in a layer norm, pre-LN keeps the residual stream open", "[unit]") {
    Rng rng(37);
    const Tensor x = test::random_tensor({2, 3, 4}, rng);
    auto post = make_block<TransformerEncoderBlock>(small_block(false), 38);
    const Tensor y = (*post)(x, {});  // LN with γ = 1, β = 0 last: each row has mean 0 and variance ≈ 1
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t t = 0; t < 3; ++t) {
            double m = 0, v = 0;
            for (int64_t c = 0; c < 4; ++c) m += y.at({b, t, c}) / 4;
            for (int64_t c = 0; c < 4; ++c) v += std::pow(y.at({b, t, c}) - m, 2) / 4;
            CHECK(m == Approx(0).margin(1e-12));
            CHECK(v == Approx(1).epsilon(1e-4));
        }
    // Pre-LN with every sublayer's output projection zeroed: x + 0 + 0 = x exactly.
    auto pre = make_block<TransformerDecoderBlock>(small_block(true), 39);
    zero_parameters(*pre, {"self_attn.o_proj", "cross_attn.o_proj", "ffn.linear2"});
    CHECK((*pre)(x, {.memory = test::random_tensor({2, 5, 4}, rng)}).to_vector() == x.to_vector());
}

TEST_CASE("decoder block output at t is bit-identical when targets after t change (Vaswani et al. 2017 §3.2.3)",
          "[property]") {
    const int64_t T = 5, t = 1;
    auto block = make_block<TransformerDecoderBlock>(small_block(GENERATE(true, false), Activation::relu), 40, DType::f32);
    Rng rng(41);
    const Tensor x = test::random_tensor({2, T, 4}, rng, DType::f32);
    const Tensor memory = test::random_tensor({2, 6, 4}, rng, DType::f32);
    Tensor x_changed = x.clone();
    for (int64_t s = t + 1; s < T; ++s)
        for (int64_t c = 0; c < 4; ++c) x_changed.set({0, s, c}, 4.0), x_changed.set({1, s, c}, -2.5);
    const Tensor before = (*block)(x, {.memory = memory}), after = (*block)(x_changed, {.memory = memory});
    CHECK(slice(after, 1, 0, t + 1).to_vector() == slice(before, 1, 0, t + 1).to_vector());
    CHECK(slice(after, 1, t + 1, T).to_vector() != slice(before, 1, t + 1, T).to_vector());
}

TEST_CASE("an encoder block with context.causal is causal too (a decoder-only LM block)", "[property]") {
    auto block = make_block<TransformerEncoderBlock>(small_block(true), 42, DType::f32);
    Rng rng(43);
    const Tensor x = test::random_tensor({2, 4, 4}, rng, DType::f32);
    Tensor x_changed = x.clone();
    for (int64_t c = 0; c < 4; ++c) x_changed.set({1, 3, c}, 7.0 * double(c + 1));
    const Tensor before = (*block)(x, {.causal = true}), after = (*block)(x_changed, {.causal = true});
    CHECK(slice(after, 1, 0, 3).to_vector() == slice(before, 1, 0, 3).to_vector());
    // The control: without the mask the same change does reach positions 0..2 (through attention).
    CHECK(slice((*block)(x_changed, {}), 1, 0, 3).to_vector() != slice((*block)(x, {}), 1, 0, 3).to_vector());
}

TEST_CASE("block parameters are named like PyTorch's transformer layers", "[unit]") {
    auto decoder = make_block<TransformerDecoderBlock>(small_block(false), 44);
    std::vector<std::string> names;
    for (const auto& [name, parameter] : decoder->named_parameters()) names.push_back(name);
    for (const char* expected : {"self_attn.q_proj.weight", "self_attn.o_proj.bias", "cross_attn.k_proj.weight",
                                 "ffn.linear1.weight", "ffn.linear2.bias", "norm1.weight", "norm3.bias"})
        CHECK(std::find(names.begin(), names.end(), expected) != names.end());
    // Two attentions (4·16 + 4·4 each), FFN 4→6→4, three norms.
    CHECK(decoder->parameter_count() == 2 * 80 + (4 * 6 + 6 + 6 * 4 + 4) + 3 * 8);
}

TEST_CASE("a decoder block without memory is a clear error", "[unit]") {
    auto decoder = make_block<TransformerDecoderBlock>(small_block(true), 45);
    REQUIRE_THROWS_WITH((*decoder)(Tensor::zeros({1, 2, 4}, DType::f64), {}), Catch::Contains("needs context.memory"));
}

TEST_CASE("the registry builds both blocks from JSON and names a bad key's path", "[unit]") {
    Rng init_rng(1);
    const LayerBuildContext build{.width = 8, .init_rng = &init_rng, .dropout_rng = std::make_shared<Rng>(2)};
    const auto encoder = builtin_layers().create(
        config::Json::parse(R"({"type": "transformer_encoder_block", "heads": 2, "ffn_hidden": 16,
                                "activation": "gelu", "norm_first": true, "dropout": 0.1})"),
        "model.layers[0]", build);
    CHECK(encoder->parameter_count() == (4 * 64 + 4 * 8) + (8 * 16 + 16 + 16 * 8 + 8) + 2 * 16);
    CHECK(encoder->forward(Tensor::ones({2, 3, 8}), {}).shape() == Shape{2, 3, 8});
    const auto decoder = builtin_layers().create(
        config::Json::parse(R"({"type": "transformer_decoder_block", "heads": 4, "kv_heads": 2})"), "decoder", build);
    CHECK(decoder->forward(Tensor::ones({2, 3, 8}), {.memory = Tensor::ones({2, 5, 8})}).shape() == Shape{2, 3, 8});
    const auto typo = config::Json::parse(R"({"type": "transformer_decoder_block", "heads": 2, "norm_frist": true})");
    REQUIRE_THROWS_AS(builtin_layers().create(typo, "model.layers[1]", build), ConfigError);
    REQUIRE_THROWS_WITH(builtin_layers().create(typo, "model.layers[1]", build),
                        Catch::Contains("model.layers[1].norm_frist: unknown key"));
}
