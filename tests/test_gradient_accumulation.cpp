// Gradient accumulation: a step's batch computed as k micro-batches trains exactly as the whole
// batch (up to float summation order) — the loss weighted by each piece's share of the batch's
// target tokens, dropout masks the same per example. And how a batch is cut into pieces.
#include "catch.h"

#include "run_helpers.h"
#include "split_batch_runs.h"
#include "train/batch_shares.h"
#include "train/run_dir.h"
#include "train/trainer.h"

using namespace tf;
using namespace tf::train;
using tf::test::TempDir;

TEST_CASE("a batch is cut into micro-batches, then into ranks' shares, covering every example once in order", "[unit]") {
    const std::vector<int64_t> batch = {9, 4, 7, 1, 0, 3, 8, 2, 6, 5};
    // k = 2 micro-batches of 5; 2 ranks take rows [0, 2) and [2, 5) of each.
    const std::vector<BatchShare> rank0 = shares_of_batch(batch, 2, 0, 2), rank1 = shares_of_batch(batch, 2, 1, 2);
    REQUIRE(rank0.size() == 2);
    REQUIRE(rank1.size() == 2);
    CHECK(rank0[0].examples == std::vector<int64_t>{9, 4});
    CHECK(rank0[0].first_row == 0);
    CHECK(rank1[0].examples == std::vector<int64_t>{7, 1, 0});
    CHECK(rank1[0].first_row == 2);
    CHECK(rank0[1].examples == std::vector<int64_t>{3, 8});
    CHECK(rank0[1].first_row == 5);
    CHECK(rank1[1].examples == std::vector<int64_t>{2, 6, 5});
    CHECK(rank1[1].first_row == 7);
    // One process, no accumulation: the batch itself.
    const std::vector<BatchShare> whole = shares_of_batch(batch, 1, 0, 1);
    REQUIRE(whole.size() == 1);
    CHECK(whole[0].examples == batch);
    // An epoch's short last batch of 3 in 2 × 2 pieces: micro-batch 0 has one row, which rank 1
    // takes; rank 0 has nothing to run there.
    const std::vector<int64_t> short_batch = {4, 2, 0};
    const std::vector<BatchShare> short0 = shares_of_batch(short_batch, 2, 0, 2), short1 = shares_of_batch(short_batch, 2, 1, 2);
    REQUIRE(short0.size() == 1);
    CHECK(short0[0].examples == std::vector<int64_t>{2});
    CHECK(short0[0].first_row == 1);
    REQUIRE(short1.size() == 2);
    CHECK(short1[0].examples == std::vector<int64_t>{4});
    CHECK(short1[1].examples == std::vector<int64_t>{0});
    CHECK(short1[1].first_row == 2);
}

TEST_CASE("target_tokens counts each example's targets and its <eos>", "[unit]") {
    const std::vector<Example> examples = {{{1, 2}, {3, 4, 5}}, {{6}, {7}}, {{8, 9, 10}, {}}};
    CHECK(target_tokens(examples, {0, 1, 2}, false) == 4 + 2 + 1);
    CHECK(target_tokens(examples, {2, 0}, true) == 4 + 3);   // a language model predicts its source
}

namespace {
// Trains `model` 20 steps with the whole batch and with `k` micro-batches; returns their largest gap.
double accumulation_gap(const config::Json& model, int64_t k) {
    TempDir whole_dir("tapeformer-whole"), pieces_dir("tapeformer-pieces");
    train::train(test::pieces_run(model, 20), {.run_dir = whole_dir.path(), .quiet = true});
    train::train(test::pieces_run(model, 20, k), {.run_dir = pieces_dir.path(), .quiet = true});
    return test::largest_relative_gap(whole_dir.path(), pieces_dir.path());
}
}  // namespace

TEST_CASE("accumulating 2 micro-batches of B/2 trains a transformer with dropout as one batch of B", "[integration]") {
    CHECK(accumulation_gap(test::kPiecesTransformer, 2) < 1e-5);
    CHECK(accumulation_gap(test::kPiecesTransformer, 8) < 1e-5);   // one example per micro-batch
}

TEST_CASE("accumulating 2 micro-batches of B/2 trains a GRU with attention and dropout as one batch of B", "[integration]") {
    CHECK(accumulation_gap(test::kPiecesGruAttention, 2) < 1e-5);
}

TEST_CASE("the pieces' equality is not for want of dropout: without it the run differs", "[integration]") {
    config::Json without = test::kPiecesTransformer;
    without["dropout"] = 0.0, without["attention_dropout"] = 0.0;
    TempDir with_dir("tapeformer-with"), without_dir("tapeformer-without");
    train::train(test::pieces_run(test::kPiecesTransformer, 5), {.run_dir = with_dir.path(), .quiet = true});
    train::train(test::pieces_run(without, 5), {.run_dir = without_dir.path(), .quiet = true});
    CHECK(test::largest_relative_gap(with_dir.path(), without_dir.path()) > 1e-3);
}

namespace {
// A job of `ranks` processes that never gets as far as a collective.
class RanksWithoutCollectives final : public distributed::Communicator {
public:
    explicit RanksWithoutCollectives(int ranks) : ranks_(ranks) {}
    int rank() const override { return 0; }
    int size() const override { return ranks_; }
    void all_reduce_sum(std::span<float>) override { FAIL("no collective expected"); }
    void all_reduce_sum(std::span<double>) override { FAIL("no collective expected"); }
    std::unique_ptr<distributed::PendingSum> start_all_reduce_sum(std::span<float>) override {
        FAIL("no collective expected");
        return nullptr;
    }
    std::unique_ptr<distributed::PendingSum> start_all_reduce_sum(std::span<double>) override {
        FAIL("no collective expected");
        return nullptr;
    }
    [[noreturn]] void abort_job(int) override { throw std::logic_error("abort_job"); }
    std::string engine() const override { return "test"; }

private:
    int ranks_;
};
}  // namespace

TEST_CASE("accumulate_steps that do not divide the batch, or micro-batches smaller than the ranks, are refused", "[unit]") {
    REQUIRE_THROWS_AS(test::pieces_run(test::kPiecesTransformer, 5, 3), ConfigError);
    REQUIRE_THROWS_WITH(test::pieces_run(test::kPiecesTransformer, 5, 3),
                        Catch::Contains("train.accumulate_steps: 3") && Catch::Contains("data.batch_size 8"));
    TempDir dir;
    RanksWithoutCollectives four_ranks(4);
    REQUIRE_THROWS_WITH(train::train(test::pieces_run(test::kPiecesTransformer, 5, 4), {.run_dir = dir.path(), .quiet = true, .ranks = &four_ranks}),
                        Catch::Contains("micro-batches of 2 examples") && Catch::Contains("4 ranks"));
    CHECK(!train::RunDirectory(dir.path()).has_run());   // refused before anything was written
}
