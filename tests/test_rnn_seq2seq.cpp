// The RNN encoder-decoder: shapes, decoding step by step equals teacher forcing, gradients reach
// every parameter, and attention maps are rows on the simplex.
#include "catch.h"

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/decoder_attention_registry.h"
#include "layers/recurrent/cell_registry.h"
#include "models/build.h"
#include "models/rnn_seq2seq.h"
#include "module_gradcheck.h"
#include "layers/builtin_layers.h"

using namespace tf;

namespace {

ModelInput toy_batch() {
    ModelInput input;
    input.src = IndexTensor({4, 5, 6, 0, 7, 8, 9, 4}, {2, 4});  // row 0 has length 3 (pad = 0)
    input.src_lengths = {3, 4};
    input.src_padding_mask = Tensor::from_data({0, 0, 0, 1, 0, 0, 0, 0}, {2, 4});
    input.tgt_in = IndexTensor({1, 4, 5, 1, 7, 8}, {2, 3});
    input.tgt_lengths = {3, 3};
    return input;
}

std::shared_ptr<RnnSeq2Seq> make_model(const std::string& cell, const std::string& attention, bool bidirectional, int64_t layers) {
    RnnSeq2SeqOptions options;
    options.cell = cell;
    options.embedding_size = 5;
    options.hidden_size = 6;
    options.num_layers = layers;
    options.bidirectional_encoder = bidirectional;
    if (attention != "none") options.attention = attention;
    ModelBuildContext build;
    build.vocab_size = 10;
    build.seed = 3;
    auto model = std::make_shared<RnnSeq2Seq>(options, build);
    model->eval();
    return model;
}

}  // namespace

TEST_CASE("RNN seq2seq: decoding step by step gives the teacher-forced logits", "[unit]") {
    const auto [cell, attention, bidirectional, layers] = GENERATE(
        std::make_tuple(std::string("rnn"), std::string("none"), false, 1),
        std::make_tuple(std::string("gru"), std::string("none"), true, 2),
        std::make_tuple(std::string("lstm"), std::string("none"), false, 2),
        std::make_tuple(std::string("gru"), std::string("additive"), false, 1),
        std::make_tuple(std::string("lstm"), std::string("luong_general"), true, 1),
        std::make_tuple(std::string("rnn"), std::string("luong_dot"), false, 1));
    INFO(cell << " " << attention << " bidirectional=" << bidirectional << " layers=" << layers);
    auto model = make_model(cell, attention, bidirectional, layers);
    NoGradGuard no_grad;
    const ModelInput input = toy_batch();
    const Tensor logits = model->forward(input);  // (2, 3, 10)
    REQUIRE(logits.shape() == Shape{2, 3, 10});
    DecodeState state = model->begin_decode(input, DecodeCache::automatic);
    for (int64_t t = 0; t < 3; ++t) {
        std::vector<int64_t> prefix;
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t s = 0; s <= t; ++s) prefix.push_back(input.tgt_in.values[b * 3 + s]);
        const Tensor step = model->decode_step(state, IndexTensor(prefix, {2, t + 1}));
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t v = 0; v < 10; ++v) CHECK(step.at({b, v}) == Approx(logits.at({b, t, v})).margin(1e-5));
    }
}

TEST_CASE("RNN seq2seq with attention: maps are (B, 1, T, S) rows on the simplex, 0 at padding", "[unit]") {
    const std::string attention = GENERATE(std::string("additive"), std::string("luong_general"));
    auto model = make_model("gru", attention, false, 1);
    ForwardObserver recorder{.record_attention = true};
    NoGradGuard no_grad;
    ModelInput input = toy_batch();
    input.observer = &recorder;
    model->forward(input);
    const auto& maps = recorder.attention;
    REQUIRE(maps.size() == 1);
    CHECK(maps[0].kind == attention);   // the analysis names the mechanism it shows
    const Tensor& weights = maps[0].weights;
    REQUIRE(weights.shape() == Shape{2, 1, 3, 4});
    for (int64_t t = 0; t < 3; ++t) {
        double total = 0;
        for (int64_t s = 0; s < 4; ++s) total += weights.at({0, 0, t, s});
        CHECK(total == Approx(1.0));
        CHECK(weights.at({0, 0, t, 3}) == 0.0);  // the padded source position
    }
}

TEST_CASE("RNN seq2seq: every parameter gets a gradient that matches finite differences", "[gradcheck]") {
    const std::string attention = GENERATE(std::string("none"), std::string("additive"));
    INFO(attention);
    RnnSeq2SeqOptions options;
    options.cell = "gru";
    options.embedding_size = 3;
    options.hidden_size = 4;
    if (attention != "none") options.attention = attention;
    ModelBuildContext build;
    build.vocab_size = 10;
    build.seed = 5;
    build.dtype = DType::f64;
    RnnSeq2Seq model(options, build);
    const ModelInput input = toy_batch();
    const IndexTensor targets({4, 5, 2, 7, 8, 2}, {2, 3});
    test::gradcheck_every_parameter(model, [&] { return cross_entropy(model.forward(input), targets, {0, 0.0}); });
}

TEST_CASE("every cell and decoder attention of the tables builds the RNN encoder-decoder and a layer", "[unit]") {
    // A new cell or scorer is one line in its table: nothing else names them, this test included.
    std::vector<std::string> attentions = {"none"};
    for (const std::string& attention : decoder_attention_names()) attentions.push_back(attention);
    for (const std::string& cell : recurrent_cell_names()) {
        CHECK(builtin_layers().contains(cell));
        for (const std::string& attention : attentions) {
            INFO(cell << " with " << attention);
            auto model = make_model(cell, attention, false, 2);   // luong_dot reads H-wide encoder states only
            NoGradGuard no_grad;
            CHECK(model->forward(toy_batch()).shape() == Shape{2, 3, 10});
        }
    }
}

TEST_CASE("a registry gru layer is the GRU class: same parameters from the same seed", "[unit]") {
    Rng registry_rng(9), class_rng(9);
    const auto from_registry = builtin_layers().create({{"type", "gru"}, {"hidden_size", 5}, {"num_layers", 2}}, "model.block",
                                                       {.width = 4, .init_rng = &registry_rng});
    GRU direct(RecurrentOptions{.input_size = 4, .hidden_size = 5, .num_layers = 2, .init = std::nullopt}, class_rng);
    const auto expected = direct.state_dict();
    REQUIRE(from_registry->state_dict().size() == expected.size());
    for (const auto& [name, tensor] : from_registry->state_dict()) CHECK(tensor.to_vector() == expected.at(name).to_vector());
}

TEST_CASE("a decoder attention that cannot read the encoder states is a config error naming the key", "[unit]") {
    const config::Json section = {{"type", "rnn_seq2seq"}, {"attention", "luong_dot"}, {"bidirectional_encoder", true}};
    config::JsonReader reader(section, "model");
    CHECK_THROWS_WITH(read_model_config(reader), Catch::Contains("model.attention") && Catch::Contains("2·hidden_size"));
}
