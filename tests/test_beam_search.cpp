// Beam search against greedy decoding: a beam of one is greedy decoding, and on a trained copy
// model a wider beam finds sequences at least as probable as greedy's (total log-probability).
#include <catch2/catch.hpp>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "run_helpers.h"
#include "train/batching.h"
#include "train/decoding.h"
#include "train/evaluate.h"
#include "train/run_loader.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;

namespace {

const DecodeOptions kDecode{.max_length = 20};

// A small copy-task transformer trained for `steps` steps (200: about 92% token accuracy, so
// greedy and beam decodings sometimes differ).
LoadedRun copy_model(const test::TempDir& dir, int64_t steps) {
    const config::Json root = {
        {"name", "beam"},
        {"seed", 4},
        {"threads", 1},
        {"model", {{"type", "transformer"}, {"d_model", 16}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                   {"ffn_hidden", 32}, {"max_length", 32}, {"norm_first", true}, {"scale_embeddings", false}}},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 6}, {"min_length", 2}, {"max_length", 7},
                  {"train_size", 1000}, {"valid_size", 16}, {"test_size", 40}, {"batch_size", 32}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}, {"clip_grad_norm", 1.0}}},
        {"train", {{"max_steps", steps}, {"eval_every", 0}, {"checkpoint_every", 0}}}};
    train::train(read_run_config(root, "beam"), {.run_dir = dir.path(), .quiet = true});
    return load_run(dir.path(), "latest");
}

ModelInput test_inputs(const LoadedRun& run) {
    std::vector<int64_t> all(run.dataset.test.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    return to_model_input(make_batch(run.dataset.test, all, false));
}

// log p(y, <eos> | x) = Σ_t log softmax(logits_t)[y_t], by teacher forcing the one source row `x`.
double sequence_log_prob(SequenceModel& model, const ModelInput& x, const std::vector<int64_t>& y) {
    NoGradGuard no_grad;
    const int64_t T = static_cast<int64_t>(y.size()) + 1;
    ModelInput input = x;
    std::vector<int64_t> tgt_in = {kBosId};
    tgt_in.insert(tgt_in.end(), y.begin(), y.end());
    input.tgt_in = IndexTensor(tgt_in, {1, T});
    input.tgt_lengths = {T};
    input.tgt_padding_mask = Tensor::zeros({1, T});
    const Tensor log_probs = log_softmax(model.forward(input));  // (1, T, V)
    double total = 0;
    for (int64_t t = 0; t < T; ++t) total += log_probs.at({0, t, t + 1 < T ? y[static_cast<std::size_t>(t)] : kEosId});
    return total;
}

// Greedy decoding of one row at a time, as beam search decodes.
std::vector<int64_t> greedy_row(SequenceModel& model, const ModelInput& inputs, int64_t row) {
    return greedy_decode(model, select_batch_rows(inputs, {row}), kDecode).front();
}

}  // namespace

TEST_CASE("beam search with a beam of one decodes exactly as greedy decoding", "[integration]") {
    test::TempDir barely_trained_dir("tapeformer-beam0"), trained_dir("tapeformer-beam1");
    for (LoadedRun run : {copy_model(barely_trained_dir, 1), copy_model(trained_dir, 200)}) {
        const ModelInput inputs = test_inputs(run);
        const auto beam = beam_search(*run.model, inputs, kDecode, {.beam_size = 1, .length_penalty = 0});
        for (int64_t row = 0; row < static_cast<int64_t>(beam.size()); ++row) {
            INFO("step " << run.step << ", test example " << row);
            CHECK(beam[static_cast<std::size_t>(row)] == greedy_row(*run.model, inputs, row));
        }
    }
}

TEST_CASE("on a trained copy model, a beam of 4 finds sequences at least as probable as greedy's", "[integration]") {
    test::TempDir dir("tapeformer-beam");
    LoadedRun run = copy_model(dir, 200);
    const ModelInput inputs = test_inputs(run);
    const auto beam = beam_search(*run.model, inputs, kDecode, {.beam_size = 4, .length_penalty = 0});
    int64_t different = 0;
    for (int64_t row = 0; row < static_cast<int64_t>(beam.size()); ++row) {
        const ModelInput x = select_batch_rows(inputs, {row});
        const std::vector<int64_t> greedy = greedy_row(*run.model, inputs, row);
        const auto& wide = beam[static_cast<std::size_t>(row)];
        REQUIRE(static_cast<int64_t>(greedy.size()) < kDecode.max_length);  // both ended with <eos>
        REQUIRE(static_cast<int64_t>(wide.size()) < kDecode.max_length);
        different += wide != greedy;
        INFO("test example " << row);
        CHECK(sequence_log_prob(*run.model, x, wide) >= sequence_log_prob(*run.model, x, greedy) - 1e-5);
    }
    CHECK(different > 0);  // trained just enough that the searches disagree somewhere (4 of 40 today)
}
