// Accuracy counting on a constructed prediction, checked against a hand count.
#include "catch.h"
#include <cmath>

#include "train/metrics.h"

using namespace tf;
using namespace tf::train;

namespace {
// Logits (B, T, V=3) whose argmax is `predicted` at every position.
Tensor logits_predicting(const std::vector<int64_t>& predicted, int64_t B, int64_t T) {
    Tensor logits = Tensor::zeros({B, T, 3});
    for (int64_t i = 0; i < B * T; ++i) logits.set({i / T, i % T, predicted[i]}, 1.0);
    return logits;
}
}  // namespace

TEST_CASE("token, sequence and per-position accuracy match a hand count", "[unit]") {
    // targets (pad = 0):   [1 2 2]   [2 1 0]   [1 1 1]
    // predicted:           [1 2 1]   [2 1 2]   [1 1 1]
    // per position: t0 3/3, t1 3/3, t2 1/2 (row 1 is padding there); tokens 7/8; sequences: rows 1, 2 right → 2/3
    const IndexTensor targets({1, 2, 2, 2, 1, 0, 1, 1, 1}, {3, 3});
    PredictionCounts counts;
    counts.add(logits_predicting({1, 2, 1, 2, 1, 2, 1, 1, 1}, 3, 3), targets, 0, 0.5);
    const EvalMetrics metrics = summarize(counts);
    CHECK(metrics.tokens == 8);
    CHECK(metrics.token_accuracy == Approx(7.0 / 8));
    CHECK(metrics.sequence_accuracy == Approx(2.0 / 3));
    REQUIRE(metrics.accuracy_by_position.size() == 3);
    CHECK(metrics.accuracy_by_position[0] == 1.0);
    CHECK(metrics.accuracy_by_position[1] == 1.0);
    CHECK(metrics.accuracy_by_position[2] == 0.5);
    CHECK(metrics.tokens_by_position == std::vector<int64_t>{3, 3, 2});   // position 2's accuracy rests on 2 targets
    CHECK(metrics.loss == Approx(0.5));
    CHECK(metrics.perplexity == Approx(std::exp(0.5)));
}

TEST_CASE("merging counts weights the loss by tokens", "[unit]") {
    PredictionCounts a, b;
    a.add(logits_predicting({1, 1}, 1, 2), IndexTensor({1, 1}, {1, 2}), 0, 1.0);        // 2 tokens, loss 1
    b.add(logits_predicting({1, 2, 2, 2}, 1, 4), IndexTensor({1, 2, 2, 0}, {1, 4}), 0, 4.0);  // 3 tokens, loss 4
    a.merge(b);
    const EvalMetrics metrics = summarize(a);
    CHECK(metrics.loss == Approx((2 * 1.0 + 3 * 4.0) / 5));
    CHECK(metrics.accuracy_by_position.size() == 4);
    CHECK(std::isnan(metrics.accuracy_by_position[3]));
    CHECK(metrics.tokens_by_position == std::vector<int64_t>{2, 2, 1, 0});
}
