// The run directory's bookkeeping: pruning old step checkpoints keeps the one `latest` names and
// leaves files that are not ours alone; `latest` and metrics.jsonl are read without trusting them.
#include "catch.h"

#include <filesystem>

#include "autograd/error.h"
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

TEST_CASE("checkpoints/latest must name a step checkpoint, and pruning skips step numbers too long for int64", "[unit]") {
    TempDir dir;
    const train::RunDirectory run(dir.path());
    make_directories(run.checkpoints());
    CHECK(run.latest().empty());
    for (const std::string& pointer : {std::string("../../etc/passwd\n"), std::string("step-.safetensors"),
                                       std::string("step-99999999999999999999.safetensors"), std::string(100, 'x')}) {
        INFO(pointer);
        test::write_text(run.checkpoints() + "/latest", pointer);
        REQUIRE_THROWS_AS(run.latest(), CheckpointError);
        REQUIRE_THROWS_WITH(run.latest(), Catch::Contains(run.checkpoints() + "/latest"));
    }
    run.set_latest(9223372036854775807);
    CHECK(run.latest() == run.checkpoint(9223372036854775807));
    test::write_text(run.checkpoints() + "/step-99999999999999999999.safetensors", "not ours");
    test::write_text(run.checkpoint(5), "weights");
    CHECK_NOTHROW(run.prune_checkpoints(1));
    CHECK(std::filesystem::exists(run.checkpoints() + "/step-99999999999999999999.safetensors"));
}

TEST_CASE("truncating metrics drops only rows past the step and keeps lines it cannot read", "[unit]") {
    TempDir dir;
    const train::RunDirectory run(dir.path());
    test::write_text(run.metrics(), "{\"step\":1}\n{\"step\":\"two\"}\nnot json\n{\"step\":2}\n{\"step\":3}\n[[[[1]]]]\n{\"ste");
    run.truncate_metrics(2);
    CHECK(test::read_text(run.metrics()) == "{\"step\":1}\n{\"step\":\"two\"}\nnot json\n{\"step\":2}\n[[[[1]]]]\n{\"ste\n");
}
