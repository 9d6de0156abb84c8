// Exact resume: a run cut at step k and resumed to N logs the same loss at every step and ends
// with the same parameters and optimizer state, bit for bit, as the run that was never cut —
// with dropout drawing masks, the learning rate still warming up at the cut, an evaluation at the
// cut that the uninterrupted run does not make, and the cut in the middle of an epoch. A resume
// trusts neither the checkpoint's metadata nor a changed config (unit cases at the end).
#include "catch.h"

#include <cmath>

#include "run_helpers.h"
#include "train/checkpoint.h"
#include "train/resume_config.h"
#include "train/run_dir.h"
#include "train/safetensors.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

namespace {

constexpr int64_t kCutStep = 6;      // mid-epoch: 40 examples / 8 per batch = 5 batches an epoch
constexpr int64_t kTotalSteps = 14;  // warmup lasts 10 steps, so it spans the cut

// A tiny copy-task run: `model` is the model section; everything else is shared. The thread
// count is fixed (float sums may depend on how threads split them).
RunConfig tiny_run(const config::Json& model, int64_t threads, int64_t max_steps, const std::string& precision = "fp32") {
    const config::Json root = {
        {"name", "resume"},
        {"seed", 3},
        {"threads", threads},
        {"precision", precision},
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
void require_exact_resume(const config::Json& model, int64_t threads, const std::string& precision = "fp32") {
    TempDir whole_dir("tapeformer-whole"), cut_dir("tapeformer-cut");
    const RunConfig whole = tiny_run(model, threads, kTotalSteps, precision), cut = tiny_run(model, threads, kCutStep, precision);
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

TEST_CASE("a bf16 mixed-precision run cut at step k and resumed equals the uninterrupted run bit for bit",
          "[integration]") {
    require_exact_resume(kTransformer, 2, "bf16");   // emulated on a CPU without bf16 instructions
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

namespace {
// Metadata as save_checkpoint writes it for a run at step 3, evaluated once at step 2.
std::map<std::string, std::string> valid_metadata() {
    const std::string word = "0x0123456789abcdef";
    return {{"format", "tapeformer-checkpoint-1"}, {"step", "3"}, {"elapsed_seconds", "1.25"},
            {"best_valid_loss", "2.5"}, {"best_step", "2"}, {"dropout_rng", word + "," + word + "," + word + "," + word},
            {"batcher", R"({"epoch":0,"position":3,"rng":[")" + word + R"(",")" + word + R"(",")" + word + R"(",")" + word + R"("]})"},
            {"log_loss_sum", "0.5"}, {"log_steps", "1"}, {"config", "{}"}};
}
}  // namespace

TEST_CASE("checkpoint metadata is read exactly as the writer writes it, anything else refused naming the key", "[unit]") {
    TempDir dir;
    const std::string path = dir / "c.safetensors";
    write_safetensors(path, {}, valid_metadata());
    const TrainingProgress progress = read_progress(path);
    CHECK(progress.step == 3);
    CHECK(progress.best_step == 2);
    CHECK(progress.elapsed_seconds == 1.25);
    auto before_eval = valid_metadata();
    before_eval["best_valid_loss"] = "nan", before_eval["best_step"] = "0";
    write_safetensors(path, {}, before_eval);
    CHECK(std::isnan(read_progress(path).best_valid_loss));

    const std::vector<std::pair<std::string, std::string>> refused = {
        {"step", "1e30"}, {"step", "nan"}, {"step", "inf"}, {"step", "1e19"}, {"step", "9223372036854775808"},
        {"step", "-5"}, {"step", ""}, {"step", "4.5"}, {"step", " 4"}, {"step", "0x10"}, {"step", "03"}, {"step", "+3"},
        {"best_step", "nan"}, {"best_step", "4"}, {"log_steps", "-1"}, {"log_steps", "4"},
        {"elapsed_seconds", "inf"}, {"elapsed_seconds", "-1"}, {"elapsed_seconds", "nan"}, {"elapsed_seconds", "1e999"},
        {"best_valid_loss", "inf"}, {"best_valid_loss", "-nan"}, {"best_valid_loss", "0x1p3"}, {"log_loss_sum", " 1"},
        {"dropout_rng", valid_metadata()["dropout_rng"] + ","}, {"batcher", std::string(70, '[') + "1" + std::string(70, ']')},
    };
    for (const auto& [key, value] : refused) {
        INFO(key << " = \"" << value << "\"");
        auto metadata = valid_metadata();
        metadata[key] = value;
        write_safetensors(path, {}, metadata);
        REQUIRE_THROWS_AS(read_progress(path), CheckpointError);
        REQUIRE_THROWS_WITH(read_progress(path), Catch::Contains(path) &&
                                                     (Catch::Contains("'" + key + "'") || Catch::Contains("RNG state")));
    }
}

TEST_CASE("a resume may change only the budget, logging and decoding keys", "[unit]") {
    const config::Json saved = tiny_run(kTransformer, 2, kCutStep).resolved;
    const auto changed = [&saved](const std::string& pointer, const config::Json& value) {
        config::Json now = saved;
        now[config::Json::json_pointer(pointer)] = value;
        return now;
    };
    for (const char* pointer : {"/train/max_steps", "/train/max_minutes", "/train/log_every", "/train/eval_every",
                                "/train/eval_batches", "/train/checkpoint_every", "/train/keep_checkpoints",
                                "/optimizer/schedule/total_steps", "/threads", "/decode/beam_size"}) {
        INFO(pointer);
        CHECK_NOTHROW(check_resume_config(saved, changed(pointer, 7), "ckpt"));
    }
    REQUIRE_THROWS_AS(check_resume_config(saved, changed("/model/heads", 4), "ckpt"), ConfigError);
    REQUIRE_THROWS_WITH(check_resume_config(saved, changed("/model/heads", 4), "ckpt"),
                        Catch::StartsWith("ckpt: model.heads was 2 when the run was saved and is 4 now"));
    REQUIRE_THROWS_WITH(check_resume_config(saved, changed("/data/seed", 9), "ckpt"), Catch::Contains("data.seed"));
    REQUIRE_THROWS_WITH(check_resume_config(saved, changed("/optimizer/lr", 1), "ckpt"), Catch::Contains("optimizer.lr"));
    REQUIRE_THROWS_WITH(check_resume_config(saved, changed("/train/label_smoothing", 0.1), "ckpt"),
                        Catch::Contains("train.label_smoothing"));
    config::Json extra = saved;
    extra["model"]["new_key"] = 1;
    REQUIRE_THROWS_WITH(check_resume_config(saved, extra, "ckpt"), Catch::Contains("model.new_key was absent"));
}

TEST_CASE("a run saved before a key was added reads that key as its default, and only as its default", "[unit]") {
    const config::Json now = tiny_run(kTransformer, 2, kCutStep).resolved;
    config::Json older = now;   // as a commit before model.norm_first existed would have saved it
    REQUIRE(older["model"].erase("norm_first") == 1);
    CHECK_NOTHROW(check_resume_config(older, now, "ckpt"));
    config::Json flipped = now;
    flipped["model"]["norm_first"] = !now["model"]["norm_first"].get<bool>();
    REQUIRE_THROWS_WITH(check_resume_config(older, flipped, "ckpt"), Catch::Contains("model.norm_first was"));
}
