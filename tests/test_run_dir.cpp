// The run directory's bookkeeping: pruning old step checkpoints keeps the one `latest` names and
// leaves files that are not ours alone.
#include "catch.h"

#include <filesystem>

#include "run_helpers.h"
#include "train/run_dir.h"
#include "util/files.h"

using namespace tf;
using tf::test::TempDir;

TEST_CASE("pruning keeps the newest checkpoints and the one latest names, and skips stray names", "[unit]") {
    TempDir dir;
    const train::RunDirectory run(dir.path());
    make_directories(run.checkpoints());
    for (int64_t step : {10, 20, 30, 40}) test::write_text(run.checkpoint(step), "weights");
    test::write_text(run.checkpoints() + "/step-old.safetensors", "someone else's");
    // A kill between saving step 40 and pointing `latest` at it, then a resume from 30.
    run.set_latest(30);
    run.prune_checkpoints(1);
    CHECK(std::filesystem::exists(run.checkpoint(40)));   // the newest
    CHECK(std::filesystem::exists(run.checkpoint(30)));   // what `latest` names: never deleted
    CHECK_FALSE(std::filesystem::exists(run.checkpoint(20)));
    CHECK_FALSE(std::filesystem::exists(run.checkpoint(10)));
    CHECK(std::filesystem::exists(run.checkpoints() + "/step-old.safetensors"));
    CHECK(run.latest() == run.checkpoint(30));
}
