// The tasks' ideal kernels on hand-made examples, and the share of needed positions a kernel
// reaches, on kernels whose receptive field is known: a band of half-width w reaches exactly the
// needed pairs within w of the diagonal.
#include "catch.h"

#include <cmath>

#include "analysis/studies/task_kernel.h"
#include "autograd/error.h"
#include "datasets/synthetic.h"

using namespace tf;

namespace {

// K(i, j) = 1 when |i − j| ≤ w, else 0: the receptive field of row i is [i − w, i + w].
Matrix band(int64_t rows, int64_t columns, int64_t w) {
    Matrix kernel(static_cast<std::size_t>(rows), std::vector<double>(static_cast<std::size_t>(columns), 0.0));
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < columns; ++j)
            if (std::abs(i - j) <= w) kernel[i][j] = 1.0;
    return kernel;
}

// The synthetic task `name`, as a config naming it holds it.
train::DataTask synthetic(const std::string& name) { return {train::TaskKind::synthetic, &train::synthetic_task(name)}; }

}  // namespace

TEST_CASE("ideal kernels: copy is the identity, reverse the anti-diagonal, <eos> needs no position", "[unit][task_kernel]") {
    const train::Example example{{5, 6, 7}, {5, 6, 7}};
    const Matrix copy = *ideal_kernel(synthetic("copy"), example);
    REQUIRE(copy.size() == 4);   // 3 targets + <eos>
    CHECK(copy[0] == std::vector<double>{1, 0, 0});
    CHECK(copy[2] == std::vector<double>{0, 0, 1});
    CHECK(copy[3] == std::vector<double>{0, 0, 0});
    CHECK(*ideal_kernel({train::TaskKind::autoencode}, example) == copy);
    const Matrix reverse = *ideal_kernel(synthetic("reverse"), {{5, 6, 7}, {7, 6, 5}});
    CHECK(reverse[0] == std::vector<double>{0, 0, 1});
    CHECK(reverse[2] == std::vector<double>{1, 0, 0});
    const Matrix sort = *ideal_kernel(synthetic("sort"), {{7, 5, 6}, {5, 6, 7}});
    CHECK(sort[1] == std::vector<double>{1, 1, 1});
    CHECK_FALSE(ideal_kernel({train::TaskKind::lm}, example).has_value());
}

TEST_CASE("ideal kernels: recall needs its keys, associative recall the query and its value", "[unit][task_kernel]") {
    // recall: 2 keys, 3 distractors, "?"  →  the 2 keys
    const Matrix recall = *ideal_kernel(synthetic("recall"), {{10, 11, 20, 21, 22, 99}, {10, 11}});
    CHECK(recall[0] == std::vector<double>{1, 0, 0, 0, 0, 0});
    CHECK(recall[1] == std::vector<double>{0, 1, 0, 0, 0, 0});
    // k1 v1 k2 v2 k3 v3 "?" k2  →  v2 (position 3) and the query (position 7)
    const Matrix associative = *ideal_kernel(synthetic("associative_recall"), {{10, 30, 11, 31, 12, 32, 99, 11}, {31}});
    CHECK(associative[0] == std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1});
}

TEST_CASE("a band kernel of half-width w reaches the copy task's every pair and the reversal's near the middle", "[unit][task_kernel]") {
    const int64_t S = 8;
    const train::Example example{std::vector<int64_t>(S, 5), std::vector<int64_t>(S, 5)};
    const Matrix kernel = band(S + 1, S, 2);
    CHECK(share_of_needed_positions_used(kernel, *ideal_kernel(synthetic("copy"), example), 0.01) == 1.0);
    // reverse: row i needs j = 7 − i, within 2 of i for i = 3, 4 (|7 − 2i| ≤ 2): 2 of 8 pairs
    CHECK(share_of_needed_positions_used(kernel, *ideal_kernel(synthetic("reverse"), example), 0.01) == Approx(2.0 / 8));
    // sort needs all 8 × 8 pairs; the band reaches 5 per row except at the edges: 3, 4, 5, 5, 5, 5, 4, 3
    CHECK(share_of_needed_positions_used(kernel, *ideal_kernel(synthetic("sort"), example), 0.01) == Approx(34.0 / 64));
}

TEST_CASE("the share counts a pair only above ε of its row's largest entry", "[unit][task_kernel]") {
    // row 0 needs column 0, which holds 0.5 % of the row's largest: not reached at ε = 1 %, reached at 0.1 %
    const Matrix kernel = {{0.005, 1.0}, {0.0, 1.0}, {0.0, 0.0}};
    const Matrix ideal = *ideal_kernel(synthetic("copy"), {{1, 2}, {1, 2}});
    CHECK(share_of_needed_positions_used(kernel, ideal, 0.01) == Approx(0.5));
    CHECK(share_of_needed_positions_used(kernel, ideal, 0.001) == Approx(1.0));
    CHECK(std::isnan(share_of_needed_positions_used({{0.0}}, {{0.0}}, 0.01)));   // nothing needed
    CHECK_THROWS_AS(share_of_needed_positions_used({{1.0}}, {{1.0}, {0.0}}, 0.01), ValueError);
}
