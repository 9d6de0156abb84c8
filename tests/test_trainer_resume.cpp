// Exact resume: a run cut at step k and resumed to N logs the same loss at every step and ends
// with the same parameters and optimizer state, bit for bit, as the run that was never cut —
// with dropout drawing masks, the learning rate still warming up at the cut, an evaluation at the
// cut that the uninterrupted run does not make, and the cut in the middle of an epoch.
#include "catch.h"

#include "run_helpers.h"
#include "train/run_dir.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

namespace {

constexpr int64_t kCutStep = 6;      // mid-epoch: 40 examples / 8 per batch = 5 batches an epoch
constexpr int64_t kTotalSteps = 14;  // warmup lasts 10 steps, so it spans the cut

// A tiny copy-task run: `model` is the model section; everything else is shared. The thread
// count is fixed (float sums may depend on how threads split them).
RunConfig tiny_run(const config::Json& model, int64_t threads, int64_t max_steps) {
    const config::Json root = {
        {"name", "resume"},
        {"seed", 3},
        {"threads", threads},
        {"model", model},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 6}, {"min_length", 2}, {"max_length", 6},
                  {"train_size", 40}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}, {"clip_grad_norm", 1.0},
                       {"schedule", {{"name", "linear"}, {"warmup_steps", 10}, {"total_steps", kTotalSteps}, {"min_lr", 0.001}}}}},
        {"train", {{"max_steps", max_steps}, {"log_every", 1}, {"eval_every", 4}, {"checkpoint_every", 0}}},
    };
    return read_run_config(root, "resume");
}

// Trains `model` to kTotalSteps in one go, and again cut at kCutStep and resumed; compares.
void require_exact_resume(const config::Json& model, int64_t threads) {
    TempDir whole_dir("tapeformer-whole"), cut_dir("tapeformer-cut");
    const RunConfig whole = tiny_run(model, threads, kTotalSteps), cut = tiny_run(model, threads, kCutStep);
    const TrainOptions fresh{.run_dir = whole_dir.path(), .quiet = true};
    REQUIRE(train::train(whole, fresh).steps == kTotalSteps);
    REQUIRE(train::train(cut, {.run_dir = cut_dir.path(), .quiet = true}).steps == kCutStep);
    REQUIRE(train::train(whole, {.run_dir = cut_dir.path(), .resume = true, .quiet = true}).steps == kTotalSteps);

    const RunDirectory a(whole_dir.path()), b(cut_dir.path());
    const auto losses = test::logged_losses(a.metrics());
    REQUIRE(losses.size() == static_cast<std::size_t>(kTotalSteps));
    CHECK(test::logged_losses(b.metrics()) == losses);  // ==, not Approx
    const auto final_state = test::tensor_values(a.latest());
    REQUIRE(final_state.size() > 2);
    CHECK(test::tensor_values(b.latest()) == final_state);  // parameters and Adam moments
}

const config::Json kTransformer = {{"type", "transformer"}, {"d_model", 16}, {"heads", 2}, {"encoder_layers", 1},
                                   {"decoder_layers", 1}, {"ffn_hidden", 32}, {"dropout", 0.2},
                                   {"attention_dropout", 0.1}, {"max_length", 16}};
const config::Json kGruAttention = {{"type", "rnn_seq2seq"}, {"cell", "gru"}, {"embedding_size", 12}, {"hidden_size", 16},
                                    {"num_layers", 2}, {"attention", "additive"}, {"dropout", 0.3}};

}  // namespace

TEST_CASE("a transformer run cut at step k and resumed equals the uninterrupted run bit for bit", "[integration]") {
    require_exact_resume(kTransformer, 2);
}

TEST_CASE("a GRU-with-attention run cut at step k and resumed equals the uninterrupted run bit for bit",
          "[integration]") {
    require_exact_resume(kGruAttention, 1);  // a step is many tiny GEMMs: a 2nd thread only waits
}

TEST_CASE("two fresh runs of one config with dropout log the same losses", "[integration]") {
    TempDir first("tapeformer-first"), second("tapeformer-second");
    const RunConfig config = tiny_run(kTransformer, 2, kCutStep);
    train::train(config, {.run_dir = first.path(), .quiet = true});
    train::train(config, {.run_dir = second.path(), .quiet = true});
    const auto losses = test::logged_losses(RunDirectory(first.path()).metrics());
    REQUIRE(losses.size() == static_cast<std::size_t>(kCutStep));
    CHECK(test::logged_losses(RunDirectory(second.path()).metrics()) == losses);
}
