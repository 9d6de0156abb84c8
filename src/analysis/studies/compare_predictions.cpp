// The built-in attention-versus-RNN predictions, measured and judged (analysis/studies/compare_predictions.h).
#include "analysis/studies/compare_predictions.h"

#include <cmath>

#include "analysis/studies/compare_confounds.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/studies/run_measures.h"

namespace tf {

namespace {

Domain domain_of(const std::string& measure) { return find_run_measure(measure)->domain; }

Prediction judged(std::string id, std::string claim, std::string measured, const SeedInterval& interval, double low, double high) {
    const Verdict v = judge(interval, low, high);
    return {std::move(id), std::move(claim), std::move(measured), interval, low, high, v, verdict_text(v, interval, low, high), ""};
}

}  // namespace

std::vector<Prediction> check_predictions(const CompareConfig& config, const Runs& runs) {
    const auto& base = config.predictions->baseline;
    const auto& attention = config.predictions->attention;
    std::vector<Prediction> predictions;
    // Each prediction's confound is its measure's (analysis/studies/run_measures.h), between the same two variants.
    const auto confound = [&](const char* measure, const std::string& first, const std::string& second) {
        return confound_text(find_run_measure(measure)->confound, config, runs, first, second);
    };

    const SeedInterval gain = interval_95(per_seed(collect(runs, attention, &RunMeasurements::test, &train::EvalMetrics::token_accuracy),
                                                   collect(runs, base, &RunMeasurements::test, &train::EvalMetrics::token_accuracy), difference),
                                          difference_domain(domain_of("test_token_accuracy")));
    predictions.push_back(judged("accuracy", "attention improves token accuracy by +0.10 to +0.20 over a pure RNN",
                                 interval_text(gain, "%+.3f") + ": " + attention + " − " + base + ", test token accuracy",
                                 gain, 0.10, 0.20));
    predictions.back().confound = confound("test_token_accuracy", attention, base);

    // The verdict uses the noise-to-signal ratio: it compares both models at the same step on the
    // same minibatches, which is what "the variance of the gradient" is. The norm's coefficient of
    // variation along training is shown beside it; it also moves with the learning-rate schedule
    // and with where on its loss curve each run is (docs/experiments.md).
    // A ratio of two numbers ≥ 0 is ≥ 0: its interval is taken on a log scale, so ×2 and ÷2 sit
    // equally far from 1.
    const SeedInterval noise = interval_95(per_seed(collect(runs, base, &RunMeasurements::gradient_noise),
                                                    collect(runs, attention, &RunMeasurements::gradient_noise), ratio),
                                           kNonNegative);
    const SeedInterval cv = interval_95(per_seed(collect(runs, base, &RunMeasurements::grad_norm_cv),
                                                 collect(runs, attention, &RunMeasurements::grad_norm_cv), ratio),
                                        kNonNegative);
    predictions.push_back(judged("gradient_noise", "attention reduces gradient variance about 10× (held: within half a decade, 3.2×–32×)",
                                 interval_text(noise, "%.3g×") + ": gradient noise-to-signal E‖g_b − ḡ‖²/‖ḡ‖² at the last step, " +
                                     base + " / " + attention + " (the norm's coefficient of variation along training: " +
                                     interval_text(cv, "%.3g×") + ")",
                                 noise, std::sqrt(10.0), std::sqrt(1000.0)));
    predictions.back().confound = confound("gradient_noise_to_signal", base, attention);

    const SeedInterval share = interval_95(collect(runs, attention, &RunMeasurements::needed_share), domain_of("needed_share"));
    predictions.push_back(judged("context_attention", "attention uses the full sequence as context: it reaches ≥ 90 % of the positions the task needs",
                                 interval_text(share, "%.3f") + ": share of the task's needed (output, input) pairs that " + attention +
                                     "'s dependency kernel reaches (ε = 1 %)",
                                 share, 0.9, INFINITY));
    predictions.back().confound = confound("needed_share", attention, "");

    const SeedInterval field = interval_95(collect(runs, base, &RunMeasurements::receptive_field), domain_of("receptive_field"));
    const double length = mean_of(collect(runs, base, &RunMeasurements::input_length));
    Prediction rnn = judged("context_rnn", "an RNN's effective context is about 20 tokens (held: 10–40 positions)",
                            interval_text(field, "%.1f") + " positions: " + base + "'s effective receptive field, of " +
                                format_number(length, 3) + " input positions on average",
                            field, 10, 40);
    // A limit shows only where the interval rules out reading the whole input: on inputs no longer
    // than the range's top, a field that may be the whole input (24 of 25 positions, or 5 of 5) says
    // nothing about "about 20 tokens", in either direction.
    if (length <= 40 && field.seeds > 1 && field.high >= 0.9 * length) {
        rnn.verdict = Verdict::undecided;
        rnn.verdict_text = "undecided (its field may be the whole input: inputs of " + format_number(length, 3) +
                           " positions cannot show a 10–40 limit; " +
                           (config.length_sweep ? std::string("the length sweep below measures one)")
                                                : std::string("a \"length_sweep\" in the config would measure one)"));
    }
    rnn.confound = confound("receptive_field", base, "");
    predictions.push_back(rnn);
    return predictions;
}

std::string few_seeds_warning(const std::vector<Prediction>& predictions, const std::vector<JudgedOwnPrediction>& own_predictions) {
    int64_t few = 0;
    for (const auto& p : predictions) few += p.interval.seeds < kFewestSeedsForVerdict;
    for (const auto& p : own_predictions) few += p.interval.seeds < kFewestSeedsForVerdict;
    if (few == 0) return "";
    // For the same spread s the half width t·s/√n is 12.706/√2 = 8.98·s with 2 seeds, 4.303/√3 = 2.48·s with 3.
    return "Warning: " + std::to_string(few) + " of the " + std::to_string(predictions.size() + own_predictions.size()) +
           " verdicts below rest on fewer than " + std::to_string(kFewestSeedsForVerdict) +
           " seeds. With 2 seeds Student's t is 12.7, so an interval is 3.6 times wider than with 3 seeds of the same "
           "spread, and a verdict says little; run at least 3 seeds (`--set seeds=[1,2,3]`).";
}

void write_predictions(Report& report, const std::vector<Prediction>& predictions) {
    report.heading(2, "Attention-versus-RNN predictions, measured");
    report.paragraph("Each prediction is measured once per seed; the table gives the mean and its 95 % interval over seeds "
                     "(Student's t on the measure's own scale, so that the interval stays among the values the measure can "
                     "take: a difference of accuracies on a logit scale of [−1, 1], a share on a logit scale, ratios and "
                     "other quantities ≥ 0 on a log scale; the mean is that scale's mean mapped back). A verdict is "
                     "\"held\" when the whole interval lies in the predicted range, \"not held\" when it lies wholly "
                     "outside, and \"undecided\" when it straddles a boundary (or both) — more seeds would be needed to say. "
                     "The gradient verdict uses the noise-to-signal ratio, taken at the same step on the same "
                     "minibatches for both models; the gradient norm's coefficient of variation along training is shown beside it but not judged, since it also moves with the "
                     "learning-rate schedule and with how fast each loss falls. Beside each verdict, its known confound: what else "
                     "differs between the two models, with its numbers (docs/experiments.md, \"Confounds\").");
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : predictions) rows.push_back({p.claim, p.measured, p.verdict_text, p.confound});
    report.table({"prediction", "measured: mean [95 % interval]", "verdict", "known confound"}, rows);
}

nlohmann::json predictions_json(const std::vector<Prediction>& predictions) {
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json result = nlohmann::json::array();
    for (const auto& p : predictions)
        result.push_back({{"id", p.id}, {"claim", p.claim}, {"detail", p.measured},
                          {"mean", finite(p.interval.mean)}, {"low", finite(p.interval.low)},
                          {"high", finite(p.interval.high)}, {"seeds", p.interval.seeds},
                          {"few_seeds", p.interval.seeds < kFewestSeedsForVerdict},
                          {"range", {finite(p.low), finite(p.high)}},
                          {"verdict", verdict_key(p.verdict)}, {"verdict_text", p.verdict_text},
                          {"confound", p.confound}});
    return result;
}

}  // namespace tf
