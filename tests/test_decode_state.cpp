// Each model's named decode state: reordering its rows (what beam search does) reorders every
// tensor the next step reads, so a step on reordered rows gives the reordered logits; a state made
// by another model is refused.
#include "catch.h"

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "models/rnn_seq2seq.h"
#include "models/transformer_models.h"

using namespace tf;

namespace {

ModelInput two_sources() {
    ModelInput input;
    input.src = IndexTensor({4, 5, 6, 0, 7, 8, 9, 4}, {2, 4});  // row 0 has length 3 (pad = 0)
    input.src_lengths = {3, 4};
    input.src_padding_mask = Tensor::from_data({0, 0, 0, 1, 0, 0, 0, 0}, {2, 4});
    return input;
}

std::shared_ptr<SequenceModel> rnn_model(std::optional<std::string> attention, bool bidirectional, int64_t layers) {
    RnnSeq2SeqOptions options;
    options.cell = "lstm";  // h and c in every layer's state
    options.embedding_size = 5, options.hidden_size = 6, options.num_layers = layers;
    options.bidirectional_encoder = bidirectional;
    options.attention = attention;
    ModelBuildContext build{.vocab_size = 10, .seed = 3, .dropout_rng = nullptr};
    return std::make_shared<RnnSeq2Seq>(options, build);
}

std::shared_ptr<SequenceModel> transformer_model() {
    TransformerOptions options;
    options.d_model = 8, options.heads = 2, options.encoder_layers = 1, options.decoder_layers = 1;
    options.dropout = 0.0;
    ModelBuildContext build{.vocab_size = 10, .max_length = 16, .seed = 3, .dropout_rng = nullptr};
    return std::make_shared<TransformerSeq2Seq>(options, build);
}

// Two steps on the rows as they are, and two on rows {1, 0, 1} after reordering: every step's
// logits must be the original rows in the new order.
void check_reorder(SequenceModel& model) {
    model.eval();
    NoGradGuard no_grad;
    const ModelInput input = two_sources();
    DecodeState original = model.begin_decode(input, DecodeCache::automatic);
    DecodeState reordered = model.begin_decode(input, DecodeCache::automatic);
    const std::vector<int64_t> rows = {1, 0, 1};
    reorder_decode_state(reordered, rows);
    CHECK(reordered.src_lengths == std::vector<int64_t>{4, 3, 4});
    const std::vector<std::vector<int64_t>> prefixes = {{1}, {1, 7}};
    for (const std::vector<int64_t>& tokens : prefixes) {
        const int64_t t = static_cast<int64_t>(tokens.size());
        std::vector<int64_t> two, three;
        for (int i = 0; i < 2; ++i) two.insert(two.end(), tokens.begin(), tokens.end());
        for (int i = 0; i < 3; ++i) three.insert(three.end(), tokens.begin(), tokens.end());
        const Tensor expected = index_select(model.decode_step(original, IndexTensor(two, {2, t})), 0, IndexTensor(rows));
        CHECK(test::max_relative_difference(model.decode_step(reordered, IndexTensor(three, {3, t})), expected) < 1e-5);
    }
}

}  // namespace

TEST_CASE("reordering a decode state reorders every tensor the next step reads", "[unit]") {
    SECTION("LSTM layers without attention") { check_reorder(*rnn_model(std::nullopt, true, 2)); }
    SECTION("LSTM with attention") { check_reorder(*rnn_model("luong_general", true, 1)); }
    SECTION("transformer") { check_reorder(*transformer_model()); }
}

TEST_CASE("a decode step refuses the state of another model", "[unit]") {
    auto rnn = rnn_model("additive", false, 1);
    auto transformer = transformer_model();
    NoGradGuard no_grad;
    DecodeState state = transformer->begin_decode(two_sources(), DecodeCache::on);
    REQUIRE_THROWS_AS(rnn->decode_step(state, IndexTensor({1, 1}, {2, 1})), ValueError);
}
