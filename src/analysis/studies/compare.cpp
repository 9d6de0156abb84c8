// Writing the comparison report: train (or reuse) every run, measure each the same way, then the
// tables, the predictions (analysis/studies/compare_predictions.h), the config's own predictions, the
// figures (analysis/studies/compare_figures.h) and the length sweep (analysis/studies/compare_sweep.h).
#include "analysis/studies/compare.h"

#include <csignal>
#include <cmath>
#include <memory>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare_columns.h"
#include "analysis/studies/compare_figures.h"
#include "analysis/studies/compare_findings.h"
#include "analysis/studies/compare_predictions.h"
#include "analysis/studies/compare_runs.h"
#include "analysis/studies/compare_sweep.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/studies/own_predictions.h"
#include "analysis/reports/report.h"
#include "util/directory_lock.h"
#include "util/files.h"

namespace tf {

namespace {

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

void write_json(const std::string& out, const CompareConfig& config, const Runs& runs, const std::vector<Prediction>& predictions,
                const std::vector<JudgedOwnPrediction>& own_predictions, const std::string& warning,
                const std::optional<SweepSummary>& sweep_summary) {
    nlohmann::json result = {{"name", config.name}, {"seeds", config.seeds}, {"variants", nlohmann::json::array()},
                             {"own_predictions", own_predictions_json(own_predictions)},
                             {"few_seeds_warning", warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning)}};
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    if (sweep_summary) result["length_sweep"] = length_sweep_json(config, *sweep_summary);
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
                                 {"tokens_by_position", run.test.tokens_by_position},
                                 {"gradient_noise_to_signal", finite(run.gradient_noise)}, {"grad_norm_cv", finite(run.grad_norm_cv)},
                                 {"receptive_field", finite(run.receptive_field)}, {"input_length", run.input_length},
                                 {"needed_share", finite(run.needed_share)}});
        }
        result["variants"].push_back({{"name", variant.name}, {"model", variant.model}, {"runs", runs_json}});
    }
    result["predictions"] = predictions_json(predictions);
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

    const std::string stopped_at = train_share(plan, ranks.rank(), ranks.size(), options.quiet, stop, options.on_step);
    // Every rank waits here for the others' shares, and learns whether a signal stopped any of them.
    double ranks_stopped = stopped_at.empty() ? 0 : 1;
    ranks.all_reduce_sum(std::span<double>(&ranks_stopped, 1));
    const std::string again = "; run the same command again to continue (finished runs are reused, a stopped one resumes)";
    if (!stopped_at.empty())
        throw CompareInterrupted((stop.requested() ? "stopped by a signal at " : "stopped at the caller's request at ") + stopped_at + again,
                                 stop.signal_number());
    if (ranks.rank() != 0) return "";
    if (ranks_stopped > 0) throw CompareInterrupted("another rank was stopped by a signal" + again, SIGTERM);

    const Runs runs = measure_runs(config, plan);
    Report report(out);
    if (!options.figures_dir.empty()) report.also_write_slides(options.figures_dir);
    report.heading(1, "Comparison: " + markdown::literal(config.name));
    report.paragraph("Command: " + markdown::literal(options.command) + ". Every variant trained on the same data and splits, with " + budget_text(config.budget) + "; seeds " +
                     nlohmann::json(config.seeds).dump() + " (mean ± standard deviation over seeds). Test metrics use each " +
                     "run's best validation checkpoint with teacher forcing.");
    const auto predictions = config.predictions ? check_predictions(config, runs) : std::vector<Prediction>{};
    const std::vector<JudgedOwnPrediction> own_predictions = judge_own_predictions(config, runs);
    const std::string warning = few_seeds_warning(predictions, own_predictions);
    report.box("Findings", findings(config, runs, predictions, own_predictions));
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
