// Writing the comparison report: the table, curves, accuracy by position, gradient flow,
// dependency kernels, and (when the config names their two variants) the predictions of
// docs/math/theory.md §7, each held or not, with its numbers; then the config's own predictions.
#include "analysis/compare.h"

#include <csignal>
#include <cmath>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "analysis/compare_runs.h"
#include "analysis/length_sweep.h"
#include "analysis/markdown_text.h"
#include "analysis/own_predictions.h"
#include "analysis/report.h"
#include "analysis/run_measures.h"
#include "analysis/seed_interval.h"
#include "util/directory_lock.h"
#include "util/files.h"

namespace tf {

namespace {

using Runs = std::vector<RunMeasurements>;

// One number per run of `variant` (one per seed): a field of the run ...
std::vector<double> collect(const Runs& runs, const std::string& variant, double RunMeasurements::*field) {
    std::vector<double> values;
    for (const auto& run : runs)
        if (run.variant == variant) values.push_back(run.*field);
    return values;
}

// ... or a field of one of its parts: its test metrics (&RunMeasurements::test) or decoded scores.
template <class Part>
std::vector<double> collect(const Runs& runs, const std::string& variant, Part RunMeasurements::*part, double Part::*field) {
    std::vector<double> values;
    for (const auto& run : runs)
        if (run.variant == variant) values.push_back((run.*part).*field);
    return values;
}

// The mean over seeds of a per-run curve (curves of one variant share their x values).
svg::Series mean_series(const Runs& runs, const std::string& variant, std::vector<double> RunMeasurements::*xs,
                        std::vector<double> RunMeasurements::*ys) {
    svg::Series series{variant, {}, {}};
    int64_t seeds = 0;
    for (const auto& run : runs) {
        if (run.variant != variant) continue;
        ++seeds;
        if (series.x.empty()) series.x = run.*xs, series.y.assign((run.*ys).size(), 0.0);
        for (std::size_t i = 0; i < series.y.size() && i < (run.*ys).size(); ++i) series.y[i] += (run.*ys)[i];
    }
    for (double& y : series.y) y /= static_cast<double>(std::max<int64_t>(1, seeds));
    return series;
}

std::vector<double> indices(std::size_t count) {
    std::vector<double> xs(count);
    for (std::size_t i = 0; i < count; ++i) xs[i] = static_cast<double>(i);
    return xs;
}

struct Prediction {
    std::string id, claim;
    std::string measured;        // the interval and what it is of, in words
    SeedInterval interval;       // over seeds
    double low, high;            // the predicted range
    Verdict verdict;
    std::string verdict_text;
};

// a_s − b_s (or a_s / b_s) for each seed s: the variants' runs pair up by seed, since they train on
// the same data order and draw the same initial random stream.
std::vector<double> per_seed(const std::vector<double>& a, const std::vector<double>& b, double (*combine)(double, double)) {
    std::vector<double> values;
    for (std::size_t s = 0; s < a.size() && s < b.size(); ++s) values.push_back(combine(a[s], b[s]));
    return values;
}
double difference(double a, double b) { return a - b; }
double ratio(double a, double b) { return a / b; }

// The values one run's `measure` (a row of analysis/run_measures.h) can take.
Domain domain_of(const std::string& measure) { return find_run_measure(measure)->domain; }

Prediction judged(std::string id, std::string claim, std::string measured, const SeedInterval& interval, double low, double high) {
    const Verdict v = judge(interval, low, high);
    return {std::move(id), std::move(claim), std::move(measured), interval, low, high, v, verdict_text(v, interval, low, high)};
}

std::vector<Prediction> check_predictions(const PredictionVariants& pair, const Runs& runs) {
    const auto& base = pair.baseline;
    const auto& attention = pair.attention;
    std::vector<Prediction> predictions;

    const SeedInterval gain = interval_95(per_seed(collect(runs, attention, &RunMeasurements::test, &train::EvalMetrics::token_accuracy),
                                                   collect(runs, base, &RunMeasurements::test, &train::EvalMetrics::token_accuracy), difference),
                                          difference_domain(domain_of("test_token_accuracy")));
    predictions.push_back(judged("accuracy", "attention improves token accuracy by +0.10 to +0.20 over a pure RNN",
                                 interval_text(gain, "%+.3f") + ": " + attention + " − " + base + ", test token accuracy",
                                 gain, 0.10, 0.20));

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

    const SeedInterval share = interval_95(collect(runs, attention, &RunMeasurements::needed_share), domain_of("needed_share"));
    predictions.push_back(judged("context_attention", "attention uses the full sequence as context: it reaches ≥ 90 % of the positions the task needs",
                                 interval_text(share, "%.3f") + ": share of the task's needed (output, input) pairs that " + attention +
                                     "'s dependency kernel reaches (ε = 1 %)",
                                 share, 0.9, INFINITY));

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
                           " positions cannot show a 10–40 limit; run the length sweep)";
    }
    predictions.push_back(rnn);
    return predictions;
}

// The page's warning when a verdict rests on fewer than kFewestSeedsForVerdict seeds; "" when none does.
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
                     "learning-rate schedule and with how fast each loss falls. docs/experiments.md explains each measure.");
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : predictions) rows.push_back({p.claim, p.measured, p.verdict_text});
    report.table({"prediction", "measured: mean [95 % interval]", "verdict"}, rows);
}

void write_table(Report& report, const CompareConfig& config, const Runs& runs) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& variant : config.variants) {
        const auto& v = variant.name;
        rows.push_back({v, format_count(mean_of(collect(runs, v, &RunMeasurements::parameters))),
                        format_count(mean_of(collect(runs, v, &RunMeasurements::flops_per_token))),
                        format_mean_std(collect(runs, v, &RunMeasurements::train_seconds), 3),
                        format_mean_std(collect(runs, v, &RunMeasurements::tokens_per_second), 3),
                        format_mean_std(collect(runs, v, &RunMeasurements::final_train_loss)),
                        format_mean_std(collect(runs, v, &RunMeasurements::best_valid_loss)),
                        format_mean_std(collect(runs, v, &RunMeasurements::test, &train::EvalMetrics::token_accuracy)),
                        format_mean_std(collect(runs, v, &RunMeasurements::test, &train::EvalMetrics::sequence_accuracy))});
    }
    report.table({"variant", "parameters", "FLOPs/token (train)", "train time (s)", "tokens/s", "final train loss",
                  "best validation loss", "test token accuracy", "test sequence accuracy"}, rows);
}

// The text each model wrote itself, scored; left out when no variant writes a target (language models).
void write_decoded_table(Report& report, const CompareConfig& config, const Runs& runs) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& variant : config.variants) {
        const auto& v = variant.name;
        const std::vector<double> chrf = collect(runs, v, &RunMeasurements::decoded, &train::TextScores::chrf);
        if (std::isnan(mean_of(chrf))) continue;
        rows.push_back({v, format_mean_std(collect(runs, v, &RunMeasurements::decoded, &train::TextScores::exact_match)),
                        format_mean_std(collect(runs, v, &RunMeasurements::decoded, &train::TextScores::cer)), format_mean_std(chrf),
                        format_mean_std(collect(runs, v, &RunMeasurements::decoded, &train::TextScores::bleu))});
    }
    if (rows.empty()) return;
    report.paragraph("The test split as each model decodes it itself (as its config's `decode` section says: greedy "
                     "unless `beam_size` > 1), where one early mistake can derail the rest, scored against the targets "
                     "as `docs/math/text_scores.md` defines: exact match, character error rate, chrF (β = 2) and "
                     "corpus BLEU-4 (no smoothing: 0 when no line has a matching 4-gram).");
    report.table({"variant", "decoded exact match", "character error rate¹", "chrF", "BLEU"}, rows);
    report.paragraph("¹ The character error rate can exceed 1: it counts insertions too, so a decoded line longer than "
                     "its reference can need more edits than the reference has characters (`docs/math/text_scores.md`).");
}

std::vector<double> mean_accuracy_by_position(const Runs& runs, const std::string& variant) {
    std::vector<double> total, count;
    for (const auto& run : runs) {
        if (run.variant != variant) continue;
        const auto& by_position = run.test.accuracy_by_position;
        if (total.size() < by_position.size()) total.resize(by_position.size(), 0.0), count.resize(by_position.size(), 0.0);
        for (std::size_t t = 0; t < by_position.size(); ++t)
            if (!std::isnan(by_position[t])) total[t] += by_position[t], count[t] += 1;
    }
    for (std::size_t t = 0; t < total.size(); ++t) total[t] = count[t] ? total[t] / count[t] : NAN;
    return total;
}

void write_curves(Report& report, const CompareConfig& config, const Runs& runs) {
    svg::LinePlot loss{"Training loss", "step", "loss (mean over seeds)", {}, true};
    svg::LinePlot accuracy{"Validation token accuracy", "step", "token accuracy", {}, false};
    svg::LinePlot by_position{"Test accuracy by target position", "target position t", "token accuracy", {}, false};
    svg::LinePlot by_distance{"Gradient norm by distance", "distance d = S − j + i (source j, then target i; LM: i − j)",
                              "mean ||dL_i/dx_j||", {}, true};
    for (const auto& variant : config.variants) {
        loss.series.push_back(mean_series(runs, variant.name, &RunMeasurements::loss_steps, &RunMeasurements::losses));
        accuracy.series.push_back(mean_series(runs, variant.name, &RunMeasurements::valid_steps, &RunMeasurements::valid_accuracies));
        const auto position = mean_accuracy_by_position(runs, variant.name);
        by_position.series.push_back({variant.name, indices(position.size()), position});
        for (const auto& run : runs)
            if (run.variant == variant.name) {
                by_distance.series.push_back({variant.name, indices(run.gradient_by_distance.size()), run.gradient_by_distance});
                break;
            }
    }
    report.heading(2, "Learning curves");
    report.plot("loss", loss);
    report.plot("valid_accuracy", accuracy);
    report.heading(2, "Accuracy by position");
    report.paragraph("Where recurrence forgets, accuracy falls toward the end of long sequences.");
    report.plot("accuracy_by_position", by_position);
    report.heading(2, "Gradient flow");
    report.paragraph("Mean norm of the loss gradient at target position i with respect to the input vector at source "
                     "position j, by their distance in the stream a recurrence reads — all S source tokens, then the "
                     "target — d = S − j + i (for a language model d = i − j). First seed, mean over the probed test "
                     "examples. Through an RNN the gradient decays with that path length (vanishing gradients, "
                     "Bengio et al. 1994); attention's need not (docs/math/theory.md §6).");
    report.plot("gradient_by_distance", by_distance);
    std::vector<std::vector<std::string>> rows;
    for (const auto& variant : config.variants)
        rows.push_back({variant.name, format_mean_std(collect(runs, variant.name, &RunMeasurements::gradient_noise), 3),
                        format_mean_std(collect(runs, variant.name, &RunMeasurements::grad_norm_cv), 3),
                        format_mean_std(collect(runs, variant.name, &RunMeasurements::receptive_field), 3),
                        format_number(mean_of(collect(runs, variant.name, &RunMeasurements::input_length)), 3),
                        format_mean_std(collect(runs, variant.name, &RunMeasurements::needed_share), 3)});
    report.paragraph("Gradient stability, without the gradient's scale: the noise-to-signal ratio E‖g_b − ḡ‖²/‖ḡ‖² of " +
                     std::to_string(kGradientNoiseMinibatches) + " training minibatch gradients at the last checkpoint (the "
                     "same step and the same minibatches for every run), and the coefficient of variation (sd/mean) of the "
                     "logged gradient norm over the second half of training. Context: the effective receptive field in "
                     "positions, and the share of the (output, input) pairs the task needs that the kernel reaches.");
    report.table({"variant", "gradient noise-to-signal (last step)", "gradient-norm CV (late steps)",
                  "effective receptive field (positions)", "input length", "share of needed positions reached"}, rows);
    report.heading(2, "Dependency kernels");
    report.paragraph("K(i, j) = ||dy_i/dx_j|| (docs/math/theory.md §4) for the first test example, first seed; the "
                     "effective receptive field counts the j with K(i, j) above 1% of row i's largest (§5). The task's ideal "
                     "kernel marks the inputs each correct output is a function of (docs/experiments.md, \"Context used\"): "
                     "a model that reaches them all has a share of 1.");
    bool ideal_drawn = false;
    for (const auto& variant : config.variants)
        for (const auto& run : runs)
            if (run.variant == variant.name) {
                if (!ideal_drawn && !run.ideal_kernels.empty()) {
                    report.plot("kernel_ideal", svg::Heatmap{"The task's ideal kernel", "input position j", "output position i",
                                                             "needed (1) or not (0)", run.ideal_kernels.front(), {}, {}});
                    ideal_drawn = true;
                }
                report.plot("kernel_" + variant.name, svg::Heatmap{"Dependency kernel: " + variant.name, "input position j",
                                                                    "output position i", "||dy_i/dx_j||",
                                                                    run.kernels.empty() ? Matrix{} : run.kernels.front(), {}, {}});
                break;
            }
    report.heading(2, "Viewer");
    report.paragraph("Each variant's attention maps (every layer and head) and its dependency kernel on the first test "
                     "examples, first seed: choose an example and a map; each row is a query, shading the keys it attends to "
                     "(for a kernel, an output and the inputs it depends on).");
    // Example e's maps: every variant's, in the config's order (all variants read the same test split).
    std::vector<ViewerExample> views;
    for (const auto& variant : config.variants)
        for (const auto& run : runs)
            if (run.variant == variant.name) {
                views.resize(std::max(views.size(), run.views.size()));
                for (std::size_t e = 0; e < run.views.size(); ++e) {
                    views[e].label = run.views[e].label;
                    views[e].maps.insert(views[e].maps.end(), run.views[e].maps.begin(), run.views[e].maps.end());
                }
                break;
            }
    report.viewer(views);
}

// A variant's sweep: for each max length, the mean over seeds of the input length and of the test
// token accuracy; and for a recurrent variant, its fitted error growth.
struct VariantSweep {
    std::string variant;
    std::vector<double> input_lengths, accuracies;
    std::optional<ErrorGrowthFit> fit;
};

struct SweepSummary {
    std::vector<LengthPoint> points;     // one per sweep run
    std::vector<VariantSweep> variants;  // in the config's order
};

bool is_recurrent(const CompareVariant& variant) {
    return variant.model.contains("type") && variant.model["type"] == "rnn_seq2seq";
}

SweepSummary summarize_sweep(const CompareConfig& config, std::vector<LengthPoint> points) {
    SweepSummary summary{std::move(points), {}};
    for (const auto& variant : config.variants) {
        VariantSweep& curve = summary.variants.emplace_back(VariantSweep{variant.name, {}, {}, std::nullopt});
        for (const int64_t max_length : config.length_sweep->max_lengths) {
            std::vector<double> lengths, accuracies;
            for (const auto& p : summary.points)
                if (p.variant == variant.name && p.max_length == max_length)
                    lengths.push_back(p.input_length), accuracies.push_back(p.token_accuracy);
            curve.input_lengths.push_back(mean_of(lengths));
            curve.accuracies.push_back(mean_of(accuracies));
        }
        if (is_recurrent(variant)) curve.fit = fit_error_growth(curve.input_lengths, curve.accuracies);
    }
    return summary;
}

std::string tau_text(double tau) {
    if (std::isnan(tau)) return "not measurable";
    if (std::isinf(tau)) return "∞ (no growth)";
    return format_number(tau, 3);
}

void write_length_sweep(Report& report, const CompareConfig& config, const SweepSummary& sweep) {
    report.heading(2, "Length sweep");
    report.paragraph("Every variant trained again, same budget, at each maximum input length " +
                     nlohmann::json(config.length_sweep->max_lengths).dump() +
                     " (data.max_length), and tested; the x axis is the mean input length of each test split. A recurrent "
                     "model carries its whole input through one state, so its error should grow with length; the fit "
                     "error(n) = e₀·exp(n/τ) (least squares of log(1 − token accuracy) on n) gives its decay constant τ: "
                     "the extra input positions that multiply its error by e. docs/experiments.md explains the fit.");
    svg::LinePlot plot{"Test token accuracy by input length", "mean input length (positions)", "test token accuracy (mean over seeds)",
                       {}, false};
    std::vector<std::vector<std::string>> rows;
    for (const VariantSweep& curve : sweep.variants) {
        plot.series.push_back({curve.variant, curve.input_lengths, curve.accuracies});
        if (!curve.fit) continue;
        const ErrorGrowthFit& fit = *curve.fit;
        rows.push_back({curve.variant, tau_text(fit.tau), format_number(fit.error_at_zero, 3),
                        std::isnan(fit.r_squared) ? "–" : format_number(fit.r_squared, 3), std::to_string(fit.points)});
    }
    report.plot("length_sweep", plot);
    if (!rows.empty())
        report.table({"recurrent variant", "τ (positions)", "e₀", "R² of the fit", "points fitted"}, rows);
}

void write_json(const std::string& out, const CompareConfig& config, const Runs& runs, const std::vector<Prediction>& predictions,
                const std::vector<JudgedOwnPrediction>& own_predictions, const std::string& warning,
                const std::optional<SweepSummary>& sweep_summary) {
    nlohmann::json result = {{"name", config.name}, {"seeds", config.seeds}, {"variants", nlohmann::json::array()},
                             {"predictions", nlohmann::json::array()}, {"own_predictions", own_predictions_json(own_predictions)},
                             {"few_seeds_warning", warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning)}};
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    if (sweep_summary) {
        nlohmann::json sweep = {{"max_lengths", config.length_sweep->max_lengths}, {"points", nlohmann::json::array()},
                                {"fits", nlohmann::json::array()}};
        for (const auto& p : sweep_summary->points)
            sweep["points"].push_back({{"variant", p.variant}, {"seed", p.seed}, {"max_length", p.max_length},
                                       {"input_length", p.input_length}, {"test_token_accuracy", finite(p.token_accuracy)}});
        for (const VariantSweep& curve : sweep_summary->variants) {
            if (!curve.fit) continue;
            const ErrorGrowthFit& fit = *curve.fit;
            // τ = ∞ (no growth) is written as the string "inf": JSON has no infinity
            sweep["fits"].push_back({{"variant", curve.variant},
                                     {"tau", std::isinf(fit.tau) ? nlohmann::json("inf") : finite(fit.tau)},
                                     {"error_at_zero", finite(fit.error_at_zero)}, {"r_squared", finite(fit.r_squared)},
                                     {"points", fit.points}});
        }
        result["length_sweep"] = sweep;
    }
    for (const auto& variant : config.variants) {
        nlohmann::json runs_json = nlohmann::json::array();
        for (const auto& run : runs) {
            if (run.variant != variant.name) continue;
            nlohmann::json by_position = nlohmann::json::array(), by_distance = nlohmann::json::array();
            for (double v : run.test.accuracy_by_position) by_position.push_back(finite(v));
            for (double v : run.gradient_by_distance) by_distance.push_back(finite(v));
            runs_json.push_back({{"seed", run.seed}, {"dir", run.dir}, {"parameters", run.parameters},
                                 {"flops_per_token", finite(run.flops_per_token)}, {"train_seconds", run.train_seconds},
                                 {"tokens_per_second", finite(run.tokens_per_second)}, {"final_train_loss", finite(run.final_train_loss)},
                                 {"best_valid_loss", finite(run.best_valid_loss)},
                                 {"test_loss", finite(run.test.loss)}, {"test_token_accuracy", finite(run.test.token_accuracy)},
                                 {"test_sequence_accuracy", finite(run.test.sequence_accuracy)},
                                 {"test_decoded", {{"exact_match", finite(run.decoded.exact_match)}, {"cer", finite(run.decoded.cer)},
                                                   {"chrf", finite(run.decoded.chrf)}, {"bleu", finite(run.decoded.bleu)}}},
                                 {"accuracy_by_position", by_position}, {"gradient_norm_by_distance", by_distance},
                                 {"gradient_noise_to_signal", finite(run.gradient_noise)}, {"grad_norm_cv", finite(run.grad_norm_cv)},
                                 {"receptive_field", finite(run.receptive_field)}, {"input_length", run.input_length},
                                 {"needed_share", finite(run.needed_share)}});
        }
        result["variants"].push_back({{"name", variant.name}, {"model", variant.model}, {"runs", runs_json}});
    }
    for (const auto& p : predictions)
        result["predictions"].push_back({{"id", p.id}, {"claim", p.claim}, {"detail", p.measured},
                                         {"mean", finite(p.interval.mean)}, {"low", finite(p.interval.low)},
                                         {"high", finite(p.interval.high)}, {"seeds", p.interval.seeds},
                                         {"few_seeds", p.interval.seeds < kFewestSeedsForVerdict},
                                         {"range", {finite(p.low), finite(p.high)}},
                                         {"verdict", verdict_key(p.verdict)}, {"verdict_text", p.verdict_text}});
    write_file_atomic(out + "/report.json", result.dump(1) + "\n");
}

}  // namespace

std::string run_compare(const CompareConfig& config, const CompareOptions& options) {
    const std::unique_ptr<distributed::Communicator> alone = options.ranks ? nullptr : distributed::single_process();
    distributed::Communicator& ranks = options.ranks ? *options.ranks : *alone;
    const StopRequests stop;   // a signal between two runs stops the comparison too, not only one inside a run
    const kernels::ReferenceKernels path(config.kernels);   // the measurements after training, as the runs
    const std::string out = options.out_dir.empty() ? "runs/" + config.name : options.out_dir;
    const std::vector<PlannedRun> plan = plan_runs(config, out + "/runs");
    // Rank 0 writes the comparison: a new or empty folder, or its own, one writer at a time.
    std::optional<DirectoryLock> lock;
    if (ranks.rank() == 0) {
        if (const std::string file = foreign_entry(out, "compare.resolved.json"); !file.empty())
            throw ConfigError("--run-dir " + out + ": the folder holds '" + file + "' and no comparison; a new comparison " +
                              "goes into a new or empty folder (nothing there was changed)");
        make_directories(out);
        lock.emplace(out);
        write_file_atomic(out + "/compare.resolved.json", config.resolved.dump(2) + "\n");
    }
    distributed::wait_for_every_rank(ranks);   // no rank starts training before the directory exists

    const std::string stopped_at = train_share(plan, ranks.rank(), ranks.size(), options.quiet, stop);
    // Every rank waits here for the others' shares, and learns whether a signal stopped any of them.
    double ranks_stopped = stopped_at.empty() ? 0 : 1;
    ranks.all_reduce_sum(std::span<double>(&ranks_stopped, 1));
    const std::string again = "; run the same command again to continue (finished runs are reused, a stopped one resumes)";
    if (!stopped_at.empty()) throw CompareInterrupted("stopped by a signal at " + stopped_at + again, stop.signal_number());
    if (ranks.rank() != 0) return "";
    if (ranks_stopped > 0) throw CompareInterrupted("another rank was stopped by a signal" + again, SIGTERM);

    const Runs runs = measure_runs(config, plan);
    Report report(out);
    report.heading(1, "Comparison: " + markdown::literal(config.name));
    report.paragraph("Command: " + markdown::literal(options.command) + ". Every variant trained on the same data, splits and budget; seeds " +
                     nlohmann::json(config.seeds).dump() + " (mean ± standard deviation over seeds). Test metrics use each " +
                     "run's best validation checkpoint with teacher forcing.");
    const auto predictions = config.predictions ? check_predictions(*config.predictions, runs) : std::vector<Prediction>{};
    const std::vector<JudgedOwnPrediction> own_predictions = judge_own_predictions(config, runs);
    const std::string warning = few_seeds_warning(predictions, own_predictions);
    if (!warning.empty()) report.paragraph(warning);
    if (ranks.size() > 1)
        report.paragraph("This comparison ran over " + ranks.engine() + ": the runs were shared out, each trained in one "
                         "rank alone; ranks on one machine share its cores, and the tokens/s column counts that.");
    write_table(report, config, runs);
    write_decoded_table(report, config, runs);
    if (!predictions.empty()) write_predictions(report, predictions);
    if (!own_predictions.empty()) write_own_predictions(report, own_predictions);
    write_curves(report, config, runs);
    std::optional<SweepSummary> sweep;
    if (config.length_sweep) {
        sweep = summarize_sweep(config, measure_length_sweep(plan));
        write_length_sweep(report, config, *sweep);
    }
    write_json(out, config, runs, predictions, own_predictions, warning, sweep);
    return report.write();
}

}  // namespace tf
