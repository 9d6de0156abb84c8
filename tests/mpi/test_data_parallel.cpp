// Data parallel over MPI, run as two ranks (`mpirun -np 2 tapeformer_mpi_tests`, as ctest does).
// Every case runs on both ranks in the same order, so their collectives meet; rank 0 alone runs the
// one-process runs it compares with. Two ranks with B/2 examples each must train as one process
// with B — losses and parameters within 1e-5 relative after 20 steps (float sums taken in another
// order), dropout included — and a run's checkpoint must resume with any number of ranks. A
// comparison shared out among the ranks must report what one process reports.
#include "catch.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare.h"
#include "distributed/communicator.h"
#include "run_helpers.h"
#include "split_batch_runs.h"
#include "tiny_comparison.h"
#include "train/trainer.h"
#include "util/files.h"

using namespace tf;
using namespace tf::train;

namespace {

distributed::Communicator& ranks() { return distributed::world(); }
bool leader() { return ranks().rank() == 0; }

// A directory both ranks name alike (from rank 0's pid), removed by rank 0 at the end of the case.
class SharedDir {
public:
    explicit SharedDir(const std::string& name) {
        double pid = leader() ? static_cast<double>(::getpid()) : 0.0;
        ranks().all_reduce_sum(std::span<double>(&pid, 1));
        path_ = (std::filesystem::temp_directory_path() /
                 ("tapeformer-mpi-" + std::to_string(static_cast<long>(pid)) + "-" + name)).string();
    }
    ~SharedDir() {
        distributed::wait_for_every_rank(ranks());   // both ranks are past their runs before the files go
        if (leader()) std::filesystem::remove_all(path_);
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// 20 steps over both ranks, and (rank 0) in one process; the largest gap between them.
void require_two_ranks_train_as_one(const config::Json& model, int64_t accumulate_steps) {
    REQUIRE(ranks().size() == 2);
    SharedDir two("two-ranks"), one("one-process");
    train::train(test::pieces_run(model, 20, accumulate_steps), {.run_dir = two.path(), .quiet = true, .ranks = &ranks()});
    if (!leader()) return;
    train::train(test::pieces_run(model, 20), {.run_dir = one.path(), .quiet = true});
    CHECK(test::largest_relative_gap(one.path(), two.path()) < 1e-5);
}

}  // namespace

TEST_CASE("2 ranks × B/2 train a transformer with dropout as 1 process × B", "[mpi]") {
    require_two_ranks_train_as_one(test::kPiecesTransformer, 1);
}

TEST_CASE("2 ranks × B/2 train a GRU with attention and dropout as 1 process × B", "[mpi]") {
    require_two_ranks_train_as_one(test::kPiecesGruAttention, 1);
}

TEST_CASE("2 ranks × 2 micro-batches of B/4 train as 1 process × B", "[mpi]") {
    require_two_ranks_train_as_one(test::kPiecesTransformer, 2);
}

TEST_CASE("gradients summed in buckets during the backward pass equal those summed after it", "[mpi]") {
    for (const int64_t accumulate_steps : {1, 2}) {
        SharedDir during("during-backward"), after("after-backward");
        const RunConfig run = test::pieces_run(test::kPiecesTransformer, 20, accumulate_steps);
        train::train(run, {.run_dir = during.path(), .quiet = true, .ranks = &ranks(), .gradient_sum = GradientSum::during_backward});
        train::train(run, {.run_dir = after.path(), .quiet = true, .ranks = &ranks(), .gradient_sum = GradientSum::after_backward});
        if (!leader()) continue;
        INFO(accumulate_steps << " micro-batches");
        // Two ranks' sums are a + b whichever way they are packed: the same bits.
        CHECK(test::largest_relative_gap(during.path(), after.path()) == 0);
    }
}

TEST_CASE("a 2-rank run cut at step 7 resumes in 1 process, and a 1-process run resumes on 2 ranks, as the uncut run",
          "[mpi]") {
    SharedDir two_then_one("two-then-one"), one_then_two("one-then-two"), whole("whole");
    const RunConfig cut = test::pieces_run(test::kPiecesTransformer, 7), full = test::pieces_run(test::kPiecesTransformer, 20);
    // 2 ranks to step 7, then 1 process to 20.
    train::train(cut, {.run_dir = two_then_one.path(), .quiet = true, .ranks = &ranks()});
    if (leader()) {
        CHECK(train::train(full, {.run_dir = two_then_one.path(), .resume = true, .quiet = true}).steps == 20);
        // 1 process to step 7, for the 2 ranks to continue.
        train::train(cut, {.run_dir = one_then_two.path(), .quiet = true});
        train::train(full, {.run_dir = whole.path(), .quiet = true});
    }
    distributed::wait_for_every_rank(ranks());   // rank 1 waits for rank 0's step-7 checkpoint before resuming it
    CHECK(train::train(full, {.run_dir = one_then_two.path(), .resume = true, .quiet = true, .ranks = &ranks()}).steps == 20);
    if (!leader()) return;
    CHECK(test::largest_relative_gap(whole.path(), two_then_one.path()) < 1e-5);
    CHECK(test::largest_relative_gap(whole.path(), one_then_two.path()) < 1e-5);
}

TEST_CASE("compare over 2 ranks trains each run once and reports what 1 process reports", "[mpi]") {
    SharedDir two("compare-two-ranks"), one("compare-one-process");
    const CompareConfig config = load_compare_config(test::kTinyComparisonPath, {});
    const std::string report = run_compare(config, {two.path(), "tapeformer compare tiny.json", true, &ranks()});
    CHECK(report.empty() == !leader());   // rank 0 alone writes the report
    if (!leader()) return;
    run_compare(config, {one.path(), "tapeformer compare tiny.json", true});
    // Each run was trained once: its log has as many rows as the 1-process run's, not two runs' rows.
    const auto rows = [](const std::string& metrics) { return std::count(metrics.begin(), metrics.end(), '\n'); };
    int64_t runs = 0;
    for (const auto& entry : std::filesystem::directory_iterator(two.path() + "/runs")) {
        INFO(entry.path().string());
        const std::string name = entry.path().filename().string();
        CHECK(rows(read_file(two.path() + "/runs/" + name + "/metrics.jsonl")) ==
              rows(read_file(one.path() + "/runs/" + name + "/metrics.jsonl")));
        ++runs;
    }
    CHECK(runs == 6);
    // The reports agree in every number but the clocks' and the runs' paths.
    const auto without_clocks = [](const std::string& path) {
        nlohmann::json report_json = nlohmann::json::parse(read_file(path + "/report.json"));
        for (auto& variant : report_json["variants"])
            for (auto& run : variant["runs"])
                for (const char* key : {"dir", "train_seconds", "tokens_per_second"}) run.erase(key);
        return report_json;
    };
    CHECK(without_clocks(two.path()) == without_clocks(one.path()));
    CHECK(read_file(two.path() + "/report.md").find("This comparison ran over Open MPI") != std::string::npos);
}
