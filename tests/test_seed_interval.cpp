// Intervals over seeds and the three-way verdict: Student's t worked by hand, the log-scale
// interval of a ratio, and each verdict on a constructed interval.
#include "catch.h"

#include <cmath>

#include "analysis/seed_interval.h"

using namespace tf;

TEST_CASE("the 95 % interval of 1, 2, 3 is 2 ± 4.303/√3", "[unit][verdict]") {
    CHECK(student_t_975(2) == 4.303);
    CHECK(student_t_975(1000) == 1.96);
    const SeedInterval in = interval_95({1, 2, 3});   // s = 1
    CHECK(in.seeds == 3);
    CHECK(in.mean == Approx(2));
    CHECK(in.low == Approx(2 - 4.303 / std::sqrt(3.0)));
    CHECK(in.high == Approx(2 + 4.303 / std::sqrt(3.0)));
    CHECK(interval_95({5, NAN, 5}).seeds == 2);   // NaN values are left out
    CHECK(interval_95({5, 5}).low == 5);          // no spread, no width
}

TEST_CASE("one seed has no interval and can only be undecided", "[unit][verdict]") {
    const SeedInterval in = interval_95({0.15});
    CHECK(std::isinf(in.low));
    CHECK(judge(in, 0.1, 0.2) == Verdict::undecided);
    CHECK(verdict_text(judge(in, 0.1, 0.2), in, 0.1, 0.2) == "undecided (one seed: no interval; run more seeds)");
    CHECK(judge(interval_95({}), 0.1, 0.2) == Verdict::undecided);
}

TEST_CASE("a ratio's interval is taken on a log scale: ×2 and ÷2 sit equally far from 1", "[unit][verdict]") {
    const SeedInterval in = ratio_interval_95({2, 0.5});
    CHECK(in.mean == Approx(1));   // the geometric mean
    CHECK(in.low * in.high == Approx(1));
    CHECK(ratio_interval_95({4, 4, -1}).seeds == 2);   // a non-positive ratio has no logarithm
}

TEST_CASE("held inside the range, not held wholly outside, undecided across a boundary", "[unit][verdict]") {
    const SeedInterval inside{0.15, 0.12, 0.18, 3}, below{0.02, 0.01, 0.05, 3}, above{0.4, 0.3, 0.5, 3}, across{0.1, 0.05, 0.15, 3};
    CHECK(judge(inside, 0.1, 0.2) == Verdict::held);
    CHECK(judge(below, 0.1, 0.2) == Verdict::not_held);
    CHECK(verdict_text(Verdict::not_held, below, 0.1, 0.2) == "not held (below the predicted range)");
    CHECK(verdict_text(Verdict::not_held, above, 0.1, 0.2) == "not held (above the predicted range)");
    CHECK(judge(across, 0.1, 0.2) == Verdict::undecided);
    CHECK(verdict_text(Verdict::undecided, across, 0.1, 0.2) == "undecided (the interval straddles 0.1)");
    CHECK(judge({0.95, 0.91, 0.99, 3}, 0.9, INFINITY) == Verdict::held);   // a one-sided range
}
