// The readable path as a mode: `"kernels": "reference"` / `--reference` runs every op on its
// readable form, which computes the same function as the fast path (autograd/kernels/mode.h).
#include <cmath>

#include "catch.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/random.h"
#include "helpers.h"
#include "run_helpers.h"
#include "source_paths.h"
#include "train/run_dir.h"

using namespace tf;
using test::run_cli_in;

namespace {

// A shipped config, made small enough to train 50 steps on the reference loops in seconds (the
// model's kind, its layers and the data stay what the config says), logging every step.
std::vector<std::string> small_run(const std::string& config, const std::vector<std::string>& shrink, const std::string& run_dir) {
    std::vector<std::string> args = {"train", "configs/" + config + ".json", "--run-dir", run_dir, "--quiet",
                                     "--set", "train.max_steps=50", "--set", "train.log_every=1",
                                     "--set", "train.eval_every=0", "--set", "train.checkpoint_every=0",
                                     "--set", "data.batch_size=8", "--set", "threads=1"};
    for (const std::string& assignment : shrink) args.insert(args.end(), {"--set", assignment});
    return args;
}

}  // namespace

TEST_CASE("the reference and fast paths train three shipped configs to the same losses", "[integration][reference]") {
    struct Shipped {
        std::string config;
        std::vector<std::string> shrink;
    };
    const std::vector<Shipped> shipped = {
        {"copy_transformer", {"optimizer.schedule.warmup_steps=10"}},
        {"copy_gru_attention", {}},
        {"char_lm", {"model.d_model=32", "model.layers=2", "model.ffn_hidden=64"}},
    };
    test::TempDir dir;
    for (const Shipped& run : shipped) {
        INFO(run.config);
        REQUIRE(run_cli_in(TF_SOURCE_DIR, small_run(run.config, run.shrink, dir / (run.config + "-fast"))).exit_code == 0);
        std::vector<std::string> reference = small_run(run.config, run.shrink, dir / (run.config + "-reference"));
        reference.push_back("--reference");
        REQUIRE(run_cli_in(TF_SOURCE_DIR, reference).exit_code == 0);
        const auto fast_losses = test::logged_losses(train::RunDirectory(dir / (run.config + "-fast")).metrics());
        const auto reference_losses = test::logged_losses(train::RunDirectory(dir / (run.config + "-reference")).metrics());
        REQUIRE(fast_losses.size() == 50);
        REQUIRE(reference_losses.size() == 50);
        // Sums in another order drift apart over many steps of training; the first 30 agree.
        for (std::size_t step = 0; step < 30; ++step) {
            INFO("step " << fast_losses[step].first);
            CHECK(std::abs(fast_losses[step].second - reference_losses[step].second) <= 1e-5);
        }
        // The run says which path trained it.
        const std::string saved = test::read_text(train::RunDirectory(dir / (run.config + "-reference")).config());
        CHECK(saved.find("\"kernels\": \"reference\"") != std::string::npos);
    }
}

TEST_CASE("a config's kernels key takes fast or reference and nothing else", "[unit][reference]") {
    test::TempDir dir;
    const test::CliResult wrong = run_cli_in(TF_SOURCE_DIR, {"config", "check", "configs/copy_transformer.json", "--set", "kernels=readable"});
    CHECK(wrong.exit_code == 2);
    CHECK(wrong.err.find("kernels") != std::string::npos);
    CHECK(wrong.err.find("reference") != std::string::npos);
}

TEST_CASE("linear's readable form (matmul, add, relu) takes every input the fused op takes, one row included", "[unit][reference]") {
    Rng rng(5);
    const Tensor weight = Tensor::uniform({3, 4}, -1, 1, rng), bias = Tensor::uniform({3}, -1, 1, rng);
    for (const Shape& shape : {Shape{4}, Shape{2, 4}, Shape{2, 5, 4}})
        for (const LinearActivation activation : {LinearActivation::none, LinearActivation::relu}) {
            const Tensor x = Tensor::uniform(shape, -1, 1, rng);
            const Tensor fused = linear(x, weight, bias, activation);
            const kernels::ReferenceKernels readable;
            const Tensor composed = linear(x, weight, bias, activation);
            REQUIRE(composed.shape() == fused.shape());
            CHECK(test::max_relative_difference(composed, fused) < 1e-6);
        }
}
