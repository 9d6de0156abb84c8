// Runs outlive upgrades: a run saved by an earlier commit (tests/data/saved-run, see its README)
// still evaluates, generates and resumes. A format change or a new config key without a default
// that old runs read as such fails here.
#include "catch.h"
#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_helpers.h"
#include "train/run_dir.h"
#include "source_paths.h"

using namespace tf;
using tf::test::CliResult;
using tf::test::TempDir;
namespace fs = std::filesystem;

namespace {
// A copy of the saved folder (lm.json, lines.txt, run/): resuming writes into it.
std::string copy_of_saved_run(const TempDir& dir) {
    fs::copy(std::string(TF_SOURCE_DIR) + "/tests/data/saved-run", dir.path(), fs::copy_options::recursive);
    return dir.path();
}
}  // namespace

TEST_CASE("a run saved by an earlier commit still evaluates, generates and resumes", "[integration]") {
    TempDir dir;
    const std::string folder = copy_of_saved_run(dir);
    const CliResult eval = test::run_cli_in(folder, {"eval", "--run", "run"});
    INFO("eval: " << eval.err);
    REQUIRE(eval.exit_code == 0);
    CHECK(nlohmann::json::parse(eval.out).at("step") == 4);

    const CliResult generated = test::run_cli_in(folder, {"generate", "--run", "run", "--prompt", "the ", "--max-length", "8"});
    INFO("generate: " << generated.err);
    CHECK(generated.exit_code == 0);
    CHECK_THAT(generated.out, Catch::StartsWith("the "));

    const CliResult resumed = test::run_cli_in(folder, {"train", "--resume", "run", "--set", "train.max_steps=6", "--quiet"});
    INFO("resume: " << resumed.err);
    REQUIRE(resumed.exit_code == 0);
    const train::RunDirectory run(folder + "/run");
    CHECK(test::logged_losses(run.metrics()).back().first == 6);
    CHECK(test::run_cli_in(folder, {"eval", "--run", "run", "--weights", "latest"}).exit_code == 0);
}
