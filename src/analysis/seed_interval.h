// What a comparison over a few seeds can and cannot say (docs/experiments.md, "Verdicts").
//
// Each seed gives one measurement x_s of a quantity. Its 95 % confidence interval is Student's t:
//     x̄ ± t_{0.975, n−1} · s / √n,    s the sample standard deviation over the n seeds,
// which assumes the seeds' values are roughly normal (a ratio is first put on a log scale). A
// prediction that names a range [low, high] is then
//     held       when the whole interval lies inside the range,
//     not held   when the whole interval lies outside it,
//     undecided  when the interval straddles a boundary: more seeds could go either way.
// One seed has no interval (s is unknown), so it can only ever be undecided.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tf {

struct SeedInterval {
    double mean = 0, low = 0, high = 0;   // low/high: the 95 % interval (±∞ for one seed)
    int64_t seeds = 0;
};

// t_{0.975, degrees}: the two-sided 95 % quantile of Student's t (1.96 past the table).
double student_t_975(int64_t degrees_of_freedom);

// The interval above over the finite values (NaN ones are left out; none at all gives NaNs).
SeedInterval interval_95(const std::vector<double>& per_seed);

// For a ratio: the interval of log(x) mapped back by exp, so ×2 and ÷2 are equally far from 1.
// Non-positive values are left out.
SeedInterval ratio_interval_95(const std::vector<double>& per_seed_ratios);

enum class Verdict { held, not_held, undecided };

Verdict judge(const SeedInterval& interval, double low, double high);

// report.json's name for the verdict: "held", "not_held", "undecided".
const char* verdict_key(Verdict verdict);

// "held", "not held (above the predicted range)", "undecided (the interval straddles 3.16)", ….
std::string verdict_text(Verdict verdict, const SeedInterval& interval, double low, double high);

// "+0.123 [+0.101, +0.145] (95 %, 3 seeds)", each number printf'd with `format` ("%+.3f");
// "… (one seed: no interval)" and "not measurable" for one seed and none.
std::string interval_text(const SeedInterval& interval, const char* format);

}  // namespace tf
