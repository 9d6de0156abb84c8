// The comparison report's figures (analysis/studies/compare_figures.h).
#include "analysis/studies/compare_figures.h"

#include <algorithm>

#include "analysis/studies/compare_series.h"
#include "analysis/reports/markdown_text.h"

namespace tf {

namespace {

// Decades a figure's log scale spans below its largest value: the gradient norms' axis, the kernels' colours.
constexpr int kGradientDecades = 8;
constexpr int kKernelDecades = 6;

std::vector<double> indices(std::size_t count) {
    std::vector<double> xs(count);
    for (std::size_t i = 0; i < count; ++i) xs[i] = static_cast<double>(i);
    return xs;
}

}  // namespace

void write_curves(Report& report, const CompareConfig& config, const Runs& runs) {
    svg::LinePlot loss{"Training loss", "step", "training loss (nats per target token, mean over seeds)", {}, true};
    svg::LinePlot accuracy{"Validation token accuracy", "step", "validation token accuracy (mean over seeds)", {}, false};
    svg::LinePlot by_position{"Test accuracy by target position", "target position t", "test token accuracy", {}, false};
    svg::LinePlot by_distance{"Gradient norm by distance", "distance d = S − j + i (source j, then target i; LM: i − j)",
                              "mean ||dL_i/dx_j||", {}, true};
    by_distance.log_decades = kGradientDecades;
    for (const auto& variant : config.variants) {
        loss.series.push_back(seed_mean_series(runs, variant.name, &RunMeasurements::loss_steps, &RunMeasurements::losses));
        accuracy.series.push_back(seed_mean_series(runs, variant.name, &RunMeasurements::valid_steps, &RunMeasurements::valid_accuracies));
        by_position.series.push_back(accuracy_by_position_series(runs, variant.name));
        for (const auto& run : runs)
            if (run.variant == variant.name) {
                by_distance.series.push_back({variant.name, indices(run.gradient_by_distance.size()), run.gradient_by_distance});
                break;
            }
    }
    report.heading(2, "Learning curves");
    report.paragraph("Each line is the mean over the seeds; the shaded band spans the lowest to the highest seed at each "
                     "step (min–max over " + std::to_string(config.seeds.size()) + " seeds; none with one seed). Dots mark "
                     "the steps where a curve was measured when it has few of them.");
    report.plot("loss", loss);
    report.plot("valid_accuracy", accuracy);
    report.heading(2, "Accuracy by position");
    report.paragraph("Test token accuracy at each target position t, mean over seeds. The band is a 95% Wilson interval "
                     "from that accuracy and the number of test tokens at the position (in one run): positions with few "
                     "tokens have wide bands. Positions with fewer than " + std::to_string(kFewestPositionTokens) +
                     " test tokens are left out; report.json lists every position's accuracy and token count.");
    report.plot("accuracy_by_position", by_position);
    report.heading(2, "Gradient flow");
    report.paragraph("Mean norm of the loss gradient at target position i with respect to the input vector at source "
                     "position j, by their distance in the stream a recurrence reads — all S source tokens, then the "
                     "target — d = S − j + i (for a language model d = i − j). First seed, mean over the probed test "
                     "examples. Through an RNN the gradient decays with that path length (vanishing gradients, "
                     "Bengio et al. 1994); attention's need not (docs/math/theory.md §6). The axis spans " +
                     std::to_string(kGradientDecades) + " decades below the largest value: smaller values (exact zeros "
                     "too) are drawn on its floor as ▼, their numbers in plots/gradient_by_distance.csv.");
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
    report.paragraph("K(i, j) = ||dy_i/dx_j|| (docs/math/theory.md §4) for the first test example, first seed, coloured "
                     "on a log scale over " + std::to_string(kKernelDecades) + " decades below its largest value (smaller "
                     "values take the lowest colour), so a geometric decay shows as an even ramp of colour; the "
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
                report.plot("kernel_" + variant.name,
                            svg::Heatmap{"Dependency kernel: " + variant.name, "input position j", "output position i",
                                         "||dy_i/dx_j|| (log)", run.kernels.empty() ? Matrix{} : run.kernels.front(), {}, {},
                                         kKernelDecades});
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

}  // namespace tf
