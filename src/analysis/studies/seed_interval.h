// What a comparison over a few seeds can and cannot say (docs/experiments.md, "Verdicts").
//
// Each seed gives one measurement x_s of a quantity. Its 95 % confidence interval is Student's t,
// taken on a scale z = g(x) where the quantity's domain has no ends, and mapped back by g⁻¹:
//     g⁻¹( z̄ ± t_{0.975, n−1} · s_z / √n ),    s_z the sample standard deviation of the z_s,
// which assumes the z_s are roughly normal. So the interval never leaves the domain: a share stays in
// [0, 1], a count stays ≥ 0, and a ratio's ×2 and ÷2 sit equally far from 1. A prediction that names
// a range [low, high] is then
//     held       when the whole interval lies inside the range,
//     not held   when the whole interval lies outside it,
//     undecided  when the interval straddles a boundary: more seeds could go either way.
// One seed has no interval (s is unknown), so it can only ever be undecided.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tf {

// The values a quantity can take: [lower, upper], either end possibly infinite. Its scale g:
//     no finite end         g(x) = x
//     lower end only        g(x) = log(x − lower)             (a ratio: lower = 0)
//     upper end only        g(x) = −log(upper − x)
//     both ends             g(x) = logit((x − lower) / (upper − lower))
struct Domain {
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();
};

constexpr Domain kUnbounded{};
constexpr Domain kNonNegative{0, std::numeric_limits<double>::infinity()};   // counts, losses, ratios
constexpr Domain kShare{0, 1};

// The domain of m(a) − m(b) for two values of a measure in `domain`: [lower − upper, upper − lower]
// (a difference of shares lies in [−1, 1]; of two losses, anywhere).
Domain difference_domain(const Domain& domain);

struct SeedInterval {
    double mean = 0, low = 0, high = 0;   // mean: g⁻¹(z̄); low/high: the 95 % interval (±∞ for one seed)
    int64_t seeds = 0;
};

// t_{0.975, degrees}: the two-sided 95 % quantile of Student's t (1.96 past the table).
double student_t_975(int64_t degrees_of_freedom);

// The interval above over the values inside `domain` (NaN ones and ones outside are left out; none
// at all gives NaNs). Values whose spread is below float noise (s < 10⁻⁹·|x̄|) give the point x̄.
SeedInterval interval_95(const std::vector<double>& per_seed, const Domain& domain);

enum class Verdict { held, not_held, undecided };

Verdict judge(const SeedInterval& interval, double low, double high);

// report.json's name for the verdict: "held", "not_held", "undecided".
const char* verdict_key(Verdict verdict);

// "held", "not held (above the predicted range)", "undecided (the interval [2.1, 3.5] straddles 3.16)",
// "undecided (the interval [4.2, 46.3] straddles both 10 and 40)", ….
std::string verdict_text(Verdict verdict, const SeedInterval& interval, double low, double high);

// "+0.123 [+0.101, +0.145] (95 %, 3 seeds)", each number printf'd with `format` ("%+.3f");
// "… (one seed: no interval)" and "not measurable" for one seed and none; "25 (all 3 seeds equal)"
// or "25 (both seeds equal)" for a point.
std::string interval_text(const SeedInterval& interval, const char* format);

// Fewer seeds than this and a verdict's interval is too wide to trust (t_{0.975, 1} = 12.7): the
// report warns.
constexpr int64_t kFewestSeedsForVerdict = 3;

}  // namespace tf
