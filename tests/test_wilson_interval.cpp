// The Wilson score interval against values worked by hand, and the accuracy-by-position series
// that draws it: positions with few tokens get wide bands, those with too few are left out.
#include "catch.h"
#include <cmath>

#include "analysis/studies/compare_series.h"
#include "analysis/studies/wilson_interval.h"

using namespace tf;

TEST_CASE("the Wilson interval matches a hand computation and stays inside [0, 1]", "[unit]") {
    // 8 right of 10, z = 1.96: z²/n = 0.38416, centre = (0.8 + 0.19208) / 1.38416 = 0.716738,
    // half-width = 1.96 / 1.38416 · √(0.016 + 0.009604) = 0.226581: [0.490157, 0.943319].
    const ShareInterval eight_of_ten = wilson_interval(0.8, 10, 1.96);
    CHECK(eight_of_ten.low == Approx(0.490157).margin(1e-6));
    CHECK(eight_of_ten.high == Approx(0.943319).margin(1e-6));
    // 0 of 17: not the empty interval [0, 0] that p̂ ± z√(p̂(1 − p̂)/n) gives, but [0, z²/(n + z²)] = [0, 0.184318].
    const ShareInterval none_of_seventeen = wilson_interval(0.0, 17);
    CHECK(none_of_seventeen.low == 0.0);
    CHECK(none_of_seventeen.high == Approx(0.184318).margin(1e-6));
    // More tokens, a narrower band around the same share.
    const ShareInterval many = wilson_interval(0.8, 1000);
    CHECK(many.high - many.low < eight_of_ten.high - eight_of_ten.low);
    CHECK((many.low < 0.8 && 0.8 < many.high));
    const ShareInterval none = wilson_interval(0.5, 0);
    CHECK((none.low == 0.0 && none.high == 1.0));
}

TEST_CASE("accuracy by position averages the seeds, bands each position by its tokens and leaves out the sparsest", "[unit]") {
    Runs runs(2);
    for (std::size_t s = 0; s < runs.size(); ++s) {
        runs[s].variant = "gru";
        runs[s].test.tokens_by_position = {400, 17, 3};
    }
    runs[0].test.accuracy_by_position = {0.9, 0.5, 1.0};
    runs[1].test.accuracy_by_position = {0.7, 0.7, 1.0};
    const svg::Series series = accuracy_by_position_series(runs, "gru");
    REQUIRE(series.x == std::vector<double>{0, 1});   // position 2 has 3 < kFewestPositionTokens tokens
    CHECK(series.y[0] == Approx(0.8));
    CHECK(series.y[1] == Approx(0.6));
    const ShareInterval wide = wilson_interval(0.6, 17);
    CHECK(series.low[1] == Approx(wide.low));
    CHECK(series.high[1] == Approx(wide.high));
    CHECK(series.high[1] - series.low[1] > 4 * (series.high[0] - series.low[0]));   // 17 tokens against 400
}

TEST_CASE("a curve's mean over seeds carries the band from the lowest to the highest seed", "[unit]") {
    Runs runs(3);
    const double losses[3][2] = {{3.0, 1.0}, {2.0, 2.0}, {4.0, 1.5}};
    for (std::size_t s = 0; s < runs.size(); ++s) {
        runs[s].variant = "gru";
        runs[s].loss_steps = {10, 20};
        runs[s].losses = {losses[s][0], losses[s][1]};
    }
    const svg::Series series = seed_mean_series(runs, "gru", &RunMeasurements::loss_steps, &RunMeasurements::losses);
    CHECK(series.x == std::vector<double>{10, 20});
    CHECK(series.y[0] == Approx(3.0));
    CHECK(series.y[1] == Approx(1.5));
    CHECK(series.low == std::vector<double>{2.0, 1.0});
    CHECK(series.high == std::vector<double>{4.0, 2.0});
    runs.resize(1);   // one seed: no spread to draw
    CHECK(seed_mean_series(runs, "gru", &RunMeasurements::loss_steps, &RunMeasurements::losses).low.empty());
}
