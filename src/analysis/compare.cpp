// Writing the comparison report: the table, curves, accuracy by position, gradient flow,
// dependency kernels, and (when the config names their two variants) the predictions of
// docs/math/theory.md §7, each held or not, with its numbers.
#include "analysis/compare.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <span>

#include <nlohmann/json.hpp>

#include "analysis/compare_runs.h"
#include "analysis/report.h"
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
    std::string id, claim, measured;
    double value;
    bool held;
    std::string verdict;  // "held", or "not held" with the direction
};

// "held" inside [low, high]; otherwise "not held" and on which side.
std::string verdict(double value, double low, double high) {
    if (std::isnan(value)) return "not held (not measurable)";
    if (value < low) return "not held (below the predicted range)";
    if (value > high) return "not held (above the predicted range)";
    return "held";
}

std::vector<Prediction> check_predictions(const PredictionVariants& pair, const Runs& runs) {
    const auto& base = pair.baseline;
    const auto& attention = pair.attention;
    const double gain = mean_of(collect(runs, attention, &RunMeasurements::test, &train::EvalMetrics::token_accuracy)) -
                        mean_of(collect(runs, base, &RunMeasurements::test, &train::EvalMetrics::token_accuracy));
    const double variance_ratio = mean_of(collect(runs, base, &RunMeasurements::grad_norm_variance)) /
                                  mean_of(collect(runs, attention, &RunMeasurements::grad_norm_variance));
    const double field_attention = mean_of(collect(runs, attention, &RunMeasurements::receptive_field));
    const double field_base = mean_of(collect(runs, base, &RunMeasurements::receptive_field));
    const double length = mean_of(collect(runs, attention, &RunMeasurements::input_length));
    char text[256];
    std::vector<Prediction> predictions;
    std::snprintf(text, sizeof text, "%+.3f (%s − %s, test token accuracy)", gain, attention.c_str(), base.c_str());
    predictions.push_back({"accuracy", "attention improves token accuracy by +0.10 to +0.20 over a pure RNN", text, gain,
                           gain >= 0.10 && gain <= 0.20, verdict(gain, 0.10, 0.20)});
    std::snprintf(text, sizeof text, "%.3g× (variance of the gradient norm across late steps, %s / %s)", variance_ratio,
                  base.c_str(), attention.c_str());
    predictions.push_back({"gradient_variance", "attention reduces gradient variance about 10× (held: within half a decade, 3.2×–32×)",
                           text, variance_ratio, variance_ratio >= std::sqrt(10.0) && variance_ratio <= std::sqrt(1000.0),
                           verdict(variance_ratio, std::sqrt(10.0), std::sqrt(1000.0))});
    std::snprintf(text, sizeof text, "%s: %.1f of %.1f positions; %s: %.1f", attention.c_str(), field_attention, length,
                  base.c_str(), field_base);
    const bool context_held = field_attention >= 0.9 * length && field_base >= 10 && field_base <= 40;
    predictions.push_back({"context", "attention uses the full sequence as context (≥ 90% of positions), an RNN about 20 tokens (10–40)",
                           text, field_attention / length, context_held,
                           context_held ? "held"
                                        : std::string("not held (") + (field_attention < 0.9 * length ? "attention's field is narrower" : "the RNN's field is outside 10–40") + ")"});
    return predictions;
}

void write_predictions(Report& report, const std::vector<Prediction>& predictions) {
    report.heading(2, "Attention-versus-RNN predictions, measured");
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : predictions) rows.push_back({p.claim, p.measured, p.verdict});
    report.table({"prediction", "measured", "verdict"}, rows);
}

void write_table(Report& report, const CompareConfig& config, const Runs& runs) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& variant : config.variants) {
        const auto& v = variant.name;
        rows.push_back({v, format_number(mean_of(collect(runs, v, &RunMeasurements::parameters))),
                        format_number(mean_of(collect(runs, v, &RunMeasurements::flops_per_token))),
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
    report.table({"variant", "decoded exact match", "character error rate", "chrF", "BLEU"}, rows);
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
        rows.push_back({variant.name, format_mean_std(collect(runs, variant.name, &RunMeasurements::grad_norm_variance), 3),
                        format_mean_std(collect(runs, variant.name, &RunMeasurements::receptive_field), 3),
                        format_number(mean_of(collect(runs, variant.name, &RunMeasurements::input_length)), 3)});
    report.table({"variant", "variance of the gradient norm (late steps)", "effective receptive field (positions)",
                  "input length"}, rows);
    report.heading(2, "Dependency kernels");
    report.paragraph("K(i, j) = ||dy_i/dx_j|| (docs/math/theory.md §4) for the first test example, first seed; the "
                     "effective receptive field counts the j with K(i, j) above 1% of row i's largest (§5).");
    for (const auto& variant : config.variants)
        for (const auto& run : runs)
            if (run.variant == variant.name) {
                report.plot("kernel_" + variant.name, svg::Heatmap{"Dependency kernel: " + variant.name, "input position j",
                                                                    "output position i", "||dy_i/dx_j||",
                                                                    run.kernels.empty() ? Matrix{} : run.kernels.front(), {}, {}});
                break;
            }
    report.heading(2, "Viewer");
    report.paragraph("Each variant's attention maps (every layer and head) and its dependency kernel on the first test "
                     "examples, first seed: choose an example and a map, then hover a query (an output position, for a "
                     "kernel) to see where it looks.");
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

void write_json(const std::string& out, const CompareConfig& config, const Runs& runs, const std::vector<Prediction>& predictions) {
    nlohmann::json result = {{"name", config.name}, {"seeds", config.seeds}, {"variants", nlohmann::json::array()},
                             {"predictions", nlohmann::json::array()}};
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
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
                                 {"grad_norm_variance", finite(run.grad_norm_variance)},
                                 {"receptive_field", finite(run.receptive_field)}, {"input_length", run.input_length}});
        }
        result["variants"].push_back({{"name", variant.name}, {"model", variant.model}, {"runs", runs_json}});
    }
    for (const auto& p : predictions)
        result["predictions"].push_back({{"id", p.id}, {"claim", p.claim}, {"measured", finite(p.value)},
                                         {"detail", p.measured}, {"held", p.held}, {"verdict", p.verdict}});
    write_file_atomic(out + "/report.json", result.dump(1) + "\n");
}

}  // namespace

std::string run_compare(const CompareConfig& config, const CompareOptions& options) {
    const std::unique_ptr<distributed::Communicator> alone = options.ranks ? nullptr : distributed::single_process();
    distributed::Communicator& ranks = options.ranks ? *options.ranks : *alone;
    const StopRequests stop;   // a signal between two runs stops the comparison too, not only one inside a run
    const std::string out = options.out_dir.empty() ? "runs/" + config.name : options.out_dir;
    const std::vector<PlannedRun> plan = plan_runs(config, out + "/runs");
    if (ranks.rank() == 0) {
        make_directories(out);
        write_file_atomic(out + "/compare.resolved.json", config.resolved.dump(2) + "\n");
    }
    distributed::wait_for_every_rank(ranks);   // no rank starts training before the directory exists

    const std::string stopped_at = train_share(plan, ranks.rank(), ranks.size(), options.quiet, stop);
    // Every rank waits here for the others' shares, and learns whether a signal stopped any of them.
    double ranks_stopped = stopped_at.empty() ? 0 : 1;
    ranks.all_reduce_sum(std::span<double>(&ranks_stopped, 1));
    const std::string again = "; run the same command again to continue (finished runs are reused, a stopped one resumes)";
    if (!stopped_at.empty()) throw CompareInterrupted("stopped by a signal at " + stopped_at + again);
    if (ranks.rank() != 0) return "";
    if (ranks_stopped > 0) throw CompareInterrupted("another rank was stopped by a signal" + again);

    const Runs runs = measure_runs(config, plan);
    Report report(out);
    report.heading(1, "Comparison: " + config.name);
    report.paragraph("Command: `" + options.command + "`. Every variant trained on the same data, splits and budget; seeds " +
                     nlohmann::json(config.seeds).dump() + " (mean ± standard deviation over seeds). Test metrics use each " +
                     "run's best validation checkpoint with teacher forcing.");
    if (ranks.size() > 1)
        report.paragraph("This comparison ran over " + ranks.engine() + ": the runs were shared out, each trained in one "
                         "rank alone; ranks on one machine share its cores, and the tokens/s column counts that.");
    write_table(report, config, runs);
    write_decoded_table(report, config, runs);
    const auto predictions = config.predictions ? check_predictions(*config.predictions, runs) : std::vector<Prediction>{};
    if (!predictions.empty()) write_predictions(report, predictions);
    write_curves(report, config, runs);
    write_json(out, config, runs, predictions);
    return report.write();
}

}  // namespace tf
