// Training each variant and measuring it.
#include "analysis/studies/compare_runs.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <iostream>

#include "analysis/studies/analyze.h"
#include "analysis/studies/gradient_noise.h"
#include "analysis/studies/metrics_log.h"
#include "analysis/reports/report.h"
#include "analysis/studies/task_kernel.h"
#include "autograd/kernels/gemm.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "config/json_file.h"
#include "train/evaluate.h"
#include "train/checkpoint.h"
#include "decoding/decoded_eval.h"
#include "train/run_loader.h"
#include "train/trainer.h"
#include "util/files.h"

namespace tf {

namespace {

constexpr double kReceptiveFieldEpsilon = 0.01;   // docs/math/theory.md §5: 1 % of a row's largest
constexpr uint64_t kGradientNoiseSeed = 17;

// The run name of one variant and seed (at a sweep's max length, when sweep_length > 0).
std::string run_name(const std::string& variant, int64_t seed, int64_t sweep_length) {
    return variant + (sweep_length > 0 ? "-len" + std::to_string(sweep_length) : "") + "-seed" + std::to_string(seed);
}

// The run config of one variant and seed: the shared sections with the variant's overrides, then
// the comparison's budget (analysis/studies/compare_budget.h; `flops_per_step` is the variant's, for a FLOPs
// budget); a sweep's run also caps data.max_length (and min_length with it) at its length.
config::Json variant_config(const CompareConfig& compare, const CompareVariant& variant, int64_t seed, int64_t sweep_length,
                            double flops_per_step) {
    config::Json optimizer = compare.optimizer, train = compare.train, data = compare.data;
    optimizer.merge_patch(variant.optimizer);
    train.merge_patch(variant.train);
    apply_budget(compare.budget, flops_per_step, train);
    if (sweep_length > 0) {
        data["max_length"] = sweep_length;
        if (data.contains("min_length") && data["min_length"].is_number_integer())
            data["min_length"] = std::min(data["min_length"].get<int64_t>(), sweep_length);
    }
    return {{"name", run_name(variant.name, seed, sweep_length)}, {"seed", seed}, {"kernels", name_of(compare.kernels)},
            {"model", variant.model}, {"data", data}, {"optimizer", optimizer}, {"train", train}};
}

// Trains the run unless an identical finished one is there; resumes an identical unfinished one (a
// directory without a checkpoint is a start that failed: trained again). One process: the run's own
// ranks are none. True when a signal or the step listener stopped it (after it saved).
bool train_or_reuse(const train::RunConfig& config, const std::string& dir, bool quiet, const train::StepListener& on_step) {
    const train::RunDirectory run(dir);
    train::TrainOptions options;
    options.run_dir = dir;
    options.quiet = quiet;
    options.on_step = on_step;
    if (run.has_run()) {
        // Read again as this version reads configs: a run saved before a key was added holds it at its default.
        if (train::read_run_config(config::load_json_file(run.config()), "run").resolved != config.resolved)
            throw ConfigError(dir + " holds a run with a different config; delete it or rename the comparison");
        if (train::read_progress(run.latest()).step >= config.train.max_steps) return false;  // finished: reuse it
        options.resume = true;
    }
    const train::TrainResult result = train::train(config, options);
    return result.stop_signal != 0 || result.stopped_by_caller;
}

double mean_tokens_per_second(const std::string& metrics) {
    std::vector<double> steps, rates;
    read_curve(metrics, "tokens_per_s", steps, rates);
    return mean_of(rates);
}

std::vector<double> second_half(const std::vector<double>& steps, const std::vector<double>& values) {
    std::vector<double> late;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (steps[i] > steps.back() / 2) late.push_back(values[i]);
    return late;
}

// The noise-to-signal ratio at the run's last checkpoint, over the same kGradientNoiseMinibatches
// training minibatches for every run (drawn from a fixed seed, without dropout: the weights'
// gradient field, not the training step's randomness). Loads the last checkpoint's weights into
// the run's model, so it comes after every measurement of the best weights.
double gradient_noise_at_last_checkpoint(train::LoadedRun& run, const std::string& latest) {
    if (run.checkpoint != latest) train::load_weights(latest, *run.model, run.dataset.tokenizer, run.config.resolved);
    const auto& examples = run.dataset.train;
    const int64_t batch_size = std::min<int64_t>(run.config.data.batch_size, static_cast<int64_t>(examples.size()));
    if (batch_size < 1) return NAN;
    Rng rng(kGradientNoiseSeed);
    std::vector<std::vector<int64_t>> minibatches(kGradientNoiseMinibatches);
    for (auto& indices : minibatches)
        for (int64_t k = 0; k < batch_size; ++k) indices.push_back(rng.below(static_cast<int64_t>(examples.size())));
    const auto gradients = minibatch_gradients(run.model->parameters(), kGradientNoiseMinibatches, [&](int64_t b) {
        const train::Batch batch = train::make_batch(examples, minibatches[static_cast<std::size_t>(b)], run.dataset.is_lm());
        return cross_entropy(run.model->forward(train::to_model_input(batch)), batch.tgt_out, {train::kPadId, 0.0});
    });
    return gradient_noise_to_signal(gradients);
}

void measure_gradients(train::LoadedRun& run, const CompareConfig& compare, RunMeasurements& m) {
    std::vector<double> counts;
    for (int64_t e = 0; e < compare.examples && e < static_cast<int64_t>(run.dataset.test.size()); ++e) {
        const train::Batch batch = train::make_batch({run.dataset.test[e]}, {0}, run.dataset.is_lm());
        const ModelInput input = train::to_model_input(batch);
        const int64_t source_length = run.dataset.is_lm() ? 0 : batch.src.shape[1];
        const auto by_distance = mean_by_distance(loss_gradient_norms(*run.model, input, batch.tgt_out, train::kPadId), source_length);
        if (m.gradient_by_distance.size() < by_distance.size()) m.gradient_by_distance.resize(by_distance.size(), 0.0), counts.resize(by_distance.size(), 0.0);
        for (std::size_t d = 0; d < by_distance.size(); ++d)
            if (!std::isnan(by_distance[d])) m.gradient_by_distance[d] += by_distance[d], counts[d] += 1;
        Rng rng(11 + static_cast<uint64_t>(e));
        const Matrix kernel = dependency_kernel(*run.model, input, compare.probes, rng);
        if (e < kViewerExamples) m.kernels.push_back(kernel);
        const auto field = effective_receptive_field(kernel, kReceptiveFieldEpsilon);
        for (int64_t size : field) m.receptive_field += static_cast<double>(size) / static_cast<double>(field.size());
        m.input_length += static_cast<double>(kernel.empty() ? 0 : kernel[0].size());
        const std::optional<Matrix> ideal = run.dataset.is_lm() ? std::nullopt : ideal_kernel(run.dataset.task, run.dataset.test[e]);
        m.needed_share += ideal ? share_of_needed_positions_used(kernel, *ideal, kReceptiveFieldEpsilon) : NAN;
        if (ideal && e < kViewerExamples) m.ideal_kernels.push_back(*ideal);
    }
    const double examples = static_cast<double>(std::max<std::size_t>(1, std::min<std::size_t>(compare.examples, run.dataset.test.size())));
    m.receptive_field /= examples;
    m.input_length /= examples;
    m.needed_share /= examples;
    for (std::size_t d = 0; d < counts.size(); ++d) m.gradient_by_distance[d] = counts[d] ? m.gradient_by_distance[d] / counts[d] : NAN;
}

RunMeasurements measure(const CompareConfig& compare, const std::string& variant, int64_t seed, const std::string& dir) {
    train::LoadedRun run = train::load_run(dir, "best");
    RunMeasurements m;
    m.variant = variant, m.seed = seed, m.dir = dir;
    m.parameters = static_cast<double>(run.model->parameter_count());
    const train::RunDirectory paths(dir);
    read_curve(paths.metrics(), "loss", m.loss_steps, m.losses);
    read_curve(paths.metrics(), "valid_token_accuracy", m.valid_steps, m.valid_accuracies);
    std::vector<double> valid_loss_steps;   // the same rows as valid_steps
    read_curve(paths.metrics(), "valid_loss", valid_loss_steps, m.valid_losses);
    read_curve(paths.metrics(), "grad_noise_to_signal", m.noise_steps, m.noises);
    std::vector<double> norm_steps, norms;
    read_curve(paths.metrics(), "grad_norm", norm_steps, norms);
    m.grad_norm_cv = norms.empty() ? NAN : coefficient_of_variation(second_half(norm_steps, norms));
    m.final_train_loss = m.losses.empty() ? NAN : m.losses.back();
    m.tokens_per_second = mean_tokens_per_second(paths.metrics());
    const train::TrainingProgress progress = train::read_progress(paths.latest());
    m.train_seconds = progress.elapsed_seconds;
    m.steps = static_cast<double>(progress.step);
    m.max_steps = static_cast<double>(run.config.train.max_steps);
    m.best_valid_loss = progress.best_valid_loss;
    m.test = train::evaluate(*run.model, train::evaluation_batches(run.dataset.test, run.config.data.batch_size, run.dataset.is_lm()));
    if (!run.dataset.is_lm() && !run.dataset.test.empty()) m.decoded = train::decode_and_score(run, run.dataset.test).scores;
    const auto train_batches = train::evaluation_batches(run.dataset.train, run.config.data.batch_size, run.dataset.is_lm());
    m.flops_per_token = train_batches.empty() ? NAN : training_flops_per_token(*run.model, train_batches[0]);
    measure_gradients(run, compare, m);
    for (std::size_t e = 0; e < m.kernels.size(); ++e) {   // the examples whose kernels measure_gradients kept
        const AnalysisExample example = analysis_example(run, run.dataset.test[e]);
        m.views.push_back({example_text(run, example),
                           viewer_maps(record_attention(*run.model, example), example, m.kernels[e], *run.model,
                                       variant + " (seed " + std::to_string(seed) + "): ")});
    }
    m.gradient_noise = gradient_noise_at_last_checkpoint(run, paths.latest());   // last: it replaces the best weights
    return m;
}

}  // namespace

std::vector<PlannedRun> plan_runs(const CompareConfig& config, const std::string& runs_dir) {
    std::vector<int64_t> lengths = {0};   // 0: the comparison's own runs, then the sweep's
    if (config.length_sweep) lengths.insert(lengths.end(), config.length_sweep->max_lengths.begin(), config.length_sweep->max_lengths.end());
    std::vector<PlannedRun> runs;
    for (const int64_t length : lengths)
        for (const auto& variant : config.variants) {
            // A FLOPs budget's steps depend on what a step of this variant (at this length) costs, the
            // same for every seed (the seed draws the weights, not the shapes): measured once.
            double flops_per_step = -1;
            for (int64_t seed : config.seeds) {
                try {
                    if (config.budget.kind == BudgetKind::flops && flops_per_step < 0)
                        flops_per_step =
                            training_flops_per_step(train::read_run_config(variant_config(config, variant, seed, length, 0), variant.name));
                    train::RunConfig run =
                        train::read_run_config(variant_config(config, variant, seed, length, flops_per_step), variant.name);
                    train::check_new_run(run);
                    runs.push_back({std::move(run), runs_dir + "/" + run_name(variant.name, seed, length), variant.name, seed, length});
                } catch (const ConfigError& error) {
                    throw ConfigError("variant \"" + variant.name + "\"" +
                                      (length > 0 ? " at length_sweep max_length " + std::to_string(length) : "") + ": " + error.what());
                }
            }
        }
    return runs;
}

std::vector<std::size_t> runs_of_rank(std::size_t runs, int rank, int ranks) {
    std::vector<std::size_t> share;
    for (std::size_t i = static_cast<std::size_t>(rank); i < runs; i += static_cast<std::size_t>(ranks)) share.push_back(i);
    return share;
}

std::string train_share(const std::vector<PlannedRun>& runs, int rank, int ranks, bool quiet, const StopRequests& stop,
                        const train::StepListener& on_step) {
    for (const std::size_t i : runs_of_rank(runs.size(), rank, ranks)) {
        const PlannedRun& run = runs[i];
        if (stop.requested()) return run.dir;
        if (!quiet)
            std::cerr << "==> training " << run.config.name << " in " << run.dir
                      << (ranks > 1 ? " (rank " + std::to_string(rank) + ")" : "") << "\n";
        // One progress display on the terminal: rank 0's.
        if (train_or_reuse(run.config, run.dir, quiet || rank != 0, on_step)) return run.dir;
    }
    return "";
}

std::vector<RunMeasurements> measure_runs(const CompareConfig& config, const std::vector<PlannedRun>& runs) {
    std::vector<RunMeasurements> measured;
    for (const auto& run : runs)
        if (run.sweep_length == 0) measured.push_back(measure(config, run.variant, run.seed, run.dir));
    return measured;
}

std::vector<LengthPoint> measure_length_sweep(const std::vector<PlannedRun>& runs) {
    std::vector<LengthPoint> points;
    for (const auto& planned : runs) {
        if (planned.sweep_length == 0) continue;
        train::LoadedRun run = train::load_run(planned.dir, "best");
        const auto& test = run.dataset.test;
        double length = 0;
        for (const auto& example : test) length += static_cast<double>(example.src.size()) / static_cast<double>(test.size());
        const train::EvalMetrics metrics =
            train::evaluate(*run.model, train::evaluation_batches(test, run.config.data.batch_size, run.dataset.is_lm()));
        points.push_back({planned.variant, planned.seed, planned.sweep_length, length, metrics.token_accuracy, metrics.tokens,
                          run.dataset.vocab_size});
    }
    return points;
}

}  // namespace tf
