// Intervals over seeds and the three-way verdict: Student's t worked by hand, the interval on each
// domain's scale (a ratio's on a log scale, a share's on a logit scale), that no interval leaves the
// values its measure can take, each verdict on a constructed interval, and the tables' numbers.
#include "catch.h"

#include <cmath>

#include "analysis/reports/report.h"
#include "analysis/studies/run_measures.h"
#include "analysis/studies/seed_interval.h"

using namespace tf;

TEST_CASE("the 95 % interval of 1, 2, 3 is 2 ± 4.303/√3", "[unit][verdict]") {
    CHECK(student_t_975(2) == 4.303);
    CHECK(student_t_975(1000) == 1.96);
    const SeedInterval in = interval_95({1, 2, 3}, kUnbounded);   // s = 1
    CHECK(in.seeds == 3);
    CHECK(in.mean == Approx(2));
    CHECK(in.low == Approx(2 - 4.303 / std::sqrt(3.0)));
    CHECK(in.high == Approx(2 + 4.303 / std::sqrt(3.0)));
    CHECK(interval_95({5, NAN, 5}, kUnbounded).seeds == 2);   // NaN values are left out
    CHECK(interval_95({5, 5}, kUnbounded).low == 5);          // no spread, no width
}

TEST_CASE("one seed has no interval and can only be undecided", "[unit][verdict]") {
    const SeedInterval in = interval_95({0.15}, kShare);
    CHECK(std::isinf(in.low));
    CHECK(judge(in, 0.1, 0.2) == Verdict::undecided);
    CHECK(verdict_text(judge(in, 0.1, 0.2), in, 0.1, 0.2) == "undecided (one seed: no interval; run more seeds)");
    CHECK(judge(interval_95({}, kShare), 0.1, 0.2) == Verdict::undecided);
}

TEST_CASE("a ratio's interval is taken on a log scale: ×2 and ÷2 sit equally far from 1", "[unit][verdict]") {
    const SeedInterval in = interval_95({2, 0.5}, kNonNegative);
    CHECK(in.mean == Approx(1));   // the geometric mean
    CHECK(in.low * in.high == Approx(1));
    CHECK(interval_95({4, 4, -1}, kNonNegative).seeds == 2);   // a value outside the domain is left out
}

TEST_CASE("a quantity ≥ 0 takes its interval on log(x), a share on logit(x), a difference of shares on [−1, 1]", "[unit][verdict]") {
    // Two receptive fields of 19 and 23 positions: plain Student's t gave 21 [−4.2, 46.3], a negative
    // count. On the log scale: z = log 19, log 23; z̄ ± 12.706 · s_z/√2, mapped back by exp.
    const double z1 = std::log(19.0), z2 = std::log(23.0), z_mean = (z1 + z2) / 2, z_half = 12.706 * std::abs(z1 - z2) / 2;
    const SeedInterval field = interval_95({19, 23}, kNonNegative);
    CHECK(field.mean == Approx(std::sqrt(19.0 * 23)));
    CHECK(field.low == Approx(std::exp(z_mean - z_half)));
    CHECK(field.high == Approx(std::exp(z_mean + z_half)));
    CHECK(field.low > 0);
    // A share of 0.9, 0.95, 0.99 on the logit scale log(p/(1 − p)).
    const auto logit = [](double p) { return std::log(p / (1 - p)); };
    const double l1 = logit(0.9), l2 = logit(0.95), l3 = logit(0.99), l_mean = (l1 + l2 + l3) / 3;
    const double l_sd = std::sqrt(((l1 - l_mean) * (l1 - l_mean) + (l2 - l_mean) * (l2 - l_mean) + (l3 - l_mean) * (l3 - l_mean)) / 2);
    const SeedInterval share = interval_95({0.9, 0.95, 0.99}, kShare);
    CHECK(share.high == Approx(1 / (1 + std::exp(-(l_mean + 4.303 * l_sd / std::sqrt(3.0))))));
    CHECK(share.high < 1);
    // A difference of two shares lies in [−1, 1]: the logit of (d + 1)/2.
    const Domain differences = difference_domain(kShare);
    CHECK(differences.lower == -1);
    CHECK(differences.upper == 1);
    CHECK(std::isinf(difference_domain(kNonNegative).lower));   // a difference of two losses: anywhere
    const SeedInterval gain = interval_95({0.55, 0.95}, differences);
    CHECK(gain.high <= 1);
    CHECK(gain.low >= -1);
    // A value on an end is taken half as far in as the nearest value off it: 1, 1, 0.98 → 0.99, 0.99, 0.98.
    const SeedInterval with_end = interval_95({1, 1, 0.98}, kShare);
    CHECK(with_end.mean == Approx(1 / (1 + std::exp(-(2 * logit(0.99) + logit(0.98)) / 3))));
    CHECK(with_end.high <= 1);
}

TEST_CASE("no interval of any measure, or of a difference of two, leaves the values the measure can take", "[unit][verdict]") {
    for (const RunMeasure& measure : run_measures()) {
        for (const Domain& domain : {measure.domain, difference_domain(measure.domain)}) {
            // Points spread over the domain, its ends and next to them: on a bounded domain its share of
            // the width; past a missing end, values far out.
            const bool bounded = std::isfinite(domain.lower) && std::isfinite(domain.upper);
            const double width = bounded ? domain.upper - domain.lower : 1.0;
            const double base = std::isfinite(domain.lower) ? domain.lower : (std::isfinite(domain.upper) ? domain.upper - 100 : -50);
            const std::vector<double> spots = {0, 1e-9, 1e-4, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6, 1};
            std::vector<double> values;
            for (double spot : spots) values.push_back(bounded ? base + spot * width : base + spot * 100);
            for (std::size_t a = 0; a < values.size(); ++a)
                for (std::size_t b = 0; b < values.size(); ++b)
                    for (const std::vector<double>& seeds : {std::vector<double>{values[a], values[b]},
                                                             std::vector<double>{values[a], values[b], values[(a + b) % values.size()]}}) {
                        const SeedInterval in = interval_95(seeds, domain);
                        INFO(measure.name << " on [" << domain.lower << ", " << domain.upper << "]: " << values[a] << ", "
                                          << values[b] << " → " << interval_text(in, "%.9g"));
                        REQUIRE(in.seeds == static_cast<int64_t>(seeds.size()));
                        CHECK(in.low >= domain.lower);
                        CHECK(in.high <= domain.upper);
                        CHECK(in.low <= in.mean);
                        CHECK(in.mean <= in.high);
                    }
        }
    }
}

TEST_CASE("held inside the range, not held wholly outside, undecided across one boundary or both", "[unit][verdict]") {
    const SeedInterval inside{0.15, 0.12, 0.18, 3}, below{0.02, 0.01, 0.05, 3}, above{0.4, 0.3, 0.5, 3}, across{0.1, 0.05, 0.15, 3};
    CHECK(judge(inside, 0.1, 0.2) == Verdict::held);
    CHECK(judge(below, 0.1, 0.2) == Verdict::not_held);
    CHECK(verdict_text(Verdict::not_held, below, 0.1, 0.2) == "not held (below the predicted range)");
    CHECK(verdict_text(Verdict::not_held, above, 0.1, 0.2) == "not held (above the predicted range)");
    CHECK(judge(across, 0.1, 0.2) == Verdict::undecided);
    CHECK(verdict_text(Verdict::undecided, across, 0.1, 0.2) == "undecided (the interval [0.05, 0.15] straddles 0.1)");
    CHECK(verdict_text(Verdict::undecided, {0.2, 0.15, 0.25, 3}, 0.1, 0.2) == "undecided (the interval [0.15, 0.25] straddles 0.2)");
    // An interval wider than the range straddles both of its ends, and says so.
    const SeedInterval wide{21, 4.2, 46.3, 2};
    CHECK(judge(wide, 10, 40) == Verdict::undecided);
    CHECK(verdict_text(Verdict::undecided, wide, 10, 40) == "undecided (the interval [4.2, 46.3] straddles both 10 and 40)");
    CHECK(judge({0.95, 0.91, 0.99, 3}, 0.9, INFINITY) == Verdict::held);   // a one-sided range
    CHECK(verdict_text(Verdict::undecided, {0.9, 0.8, 0.99, 3}, 0.85, INFINITY) == "undecided (the interval [0.8, 0.99] straddles 0.85)");
}

TEST_CASE("tables print float noise as no spread, and counts whole with their thousands grouped", "[unit][verdict]") {
    CHECK(format_mean_std({25, 25 + 4.4e-15, 25}) == "25");
    CHECK(format_mean_std({0, 0}) == "0");
    CHECK(format_mean_std({25, 27}) == "26 ± 1.4");
    CHECK(format_count(101504) == "101,504");
    CHECK(format_count(999) == "999");
    CHECK(format_count(1000) == "1,000");
    CHECK(format_count(1234567.4) == "1,234,567");
    CHECK(format_count(-1234567) == "-1,234,567");
    CHECK(format_count(NAN) == "–");
    // An interval of seeds that agree but for float noise is the one number.
    const SeedInterval equal = interval_95({25, 25 + 4.4e-15, 25}, kNonNegative);
    CHECK(equal.low == equal.high);
    CHECK(interval_text(equal, "%.4g") == "25 (all 3 seeds equal)");
    CHECK(interval_text(interval_95({0.5, 0.5}, kShare), "%.2f") == "0.50 (both seeds equal)");
    CHECK(interval_text(interval_95({0.2, 0.3}, kShare), "%.2f").find(" (95 %, 2 seeds)") != std::string::npos);
}
