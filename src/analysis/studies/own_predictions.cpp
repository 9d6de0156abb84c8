// Judging a comparison config's own predictions and writing them into the report.
#include "analysis/studies/own_predictions.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/studies/compare_confounds.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/studies/run_measures.h"

namespace tf {

namespace {

// The value of `measure` for the run of `variant` at `seed`; NaN when there is no such run.
double value_of(const std::vector<RunMeasurements>& runs, const RunMeasure& measure, const std::string& variant, int64_t seed) {
    for (const RunMeasurements& run : runs)
        if (run.variant == variant && run.seed == seed) return measure.of(run);
    return std::numeric_limits<double>::quiet_NaN();
}

const RunMeasure& measure_named(const std::string& name) {
    const RunMeasure* measure = find_run_measure(name);
    if (!measure) throw ConfigError("measure \"" + name + "\" is not one of the per-run measures");
    return *measure;
}

// "[+0.1, +0.5]"
std::string range_text(double low, double high) {
    char text[96];
    std::snprintf(text, sizeof text, "[%+.4g, %+.4g]", low, high);
    return text;
}

}  // namespace

JudgedOwnPrediction judge_own_prediction(const OwnPrediction& prediction, const std::vector<double>& first,
                                         const std::vector<double>& second) {
    JudgedOwnPrediction judged{prediction, {}, {}, Verdict::undecided, "", ""};
    // d_s = a_s − b_s: the two runs of seed s train on the same data order from the same random stream
    for (std::size_t s = 0; s < first.size() && s < second.size(); ++s) judged.differences.push_back(first[s] - second[s]);
    judged.interval = interval_95(judged.differences, difference_domain(measure_named(prediction.measure).domain));
    judged.verdict = judge(judged.interval, prediction.low, prediction.high);
    judged.verdict_text = verdict_text(judged.verdict, judged.interval, prediction.low, prediction.high);
    return judged;
}

std::vector<JudgedOwnPrediction> judge_own_predictions(const CompareConfig& config, const std::vector<RunMeasurements>& runs) {
    std::vector<JudgedOwnPrediction> judged;
    for (const OwnPrediction& prediction : config.own_predictions) {
        const RunMeasure& measure = measure_named(prediction.measure);
        std::vector<double> first, second;
        for (const int64_t seed : config.seeds) {
            first.push_back(value_of(runs, measure, prediction.first, seed));
            second.push_back(value_of(runs, measure, prediction.second, seed));
        }
        judged.push_back(judge_own_prediction(prediction, first, second));
        judged.back().confound = confound_text(measure.confound, config, runs, prediction.first, prediction.second);
    }
    return judged;
}

void write_own_predictions(Report& report, const std::vector<JudgedOwnPrediction>& judged) {
    report.heading(2, "Own predictions, measured");
    report.paragraph("The predictions this config states, committed to before the runs. Each is the difference of one "
                     "measure between two variants, first − second, taken seed by seed (the two runs of a seed share "
                     "the data order and the initial random stream); the table gives its mean and 95 % interval over "
                     "seeds (Student's t on a scale where the difference cannot leave the values it can take: a logit "
                     "scale for a difference of shares or scores, plain for one of unbounded quantities). A verdict is "
                     "\"held\" when the whole interval lies in the predicted range, \"not held\" when it lies wholly "
                     "outside, and \"undecided\" when it straddles a bound (or both) — more seeds "
                     "would be needed to say. Beside each verdict, its known confound: what else differs between the two "
                     "variants, with its numbers. docs/experiments.md lists the measures and how to read each.");
    std::vector<std::vector<std::string>> rows;
    for (const JudgedOwnPrediction& p : judged)
        rows.push_back({"“" + markdown::literal(p.prediction.claim) + "”",
                        markdown::literal(p.prediction.measure + ": " + p.prediction.first + " − " + p.prediction.second),
                        range_text(p.prediction.low, p.prediction.high),
                        interval_text(p.interval, "%+.4g"), p.verdict_text, p.confound});
    report.table({"claim", "measure: first − second", "predicted range", "measured: mean [95 % interval]", "verdict", "known confound"},
                 rows);
}

nlohmann::json own_predictions_json(const std::vector<JudgedOwnPrediction>& judged) {
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json list = nlohmann::json::array();
    for (const JudgedOwnPrediction& p : judged) {
        nlohmann::json differences = nlohmann::json::array();
        for (const double d : p.differences) differences.push_back(finite(d));
        list.push_back({{"claim", p.prediction.claim}, {"measure", p.prediction.measure},
                        {"variants", {p.prediction.first, p.prediction.second}}, {"range", {p.prediction.low, p.prediction.high}},
                        {"differences", differences}, {"mean", finite(p.interval.mean)}, {"low", finite(p.interval.low)},
                        {"high", finite(p.interval.high)}, {"seeds", p.interval.seeds},
                        {"few_seeds", p.interval.seeds < kFewestSeedsForVerdict}, {"verdict", verdict_key(p.verdict)},
                        {"verdict_text", p.verdict_text}, {"confound", p.confound}});
    }
    return list;
}

}  // namespace tf
