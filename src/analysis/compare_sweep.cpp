// The length sweep's section of a comparison report (analysis/compare_sweep.h).
#include "analysis/compare_sweep.h"

#include <cmath>

#include "analysis/markdown_text.h"

namespace tf {

namespace {

bool is_recurrent(const CompareVariant& variant) {
    return variant.model.contains("type") && variant.model["type"] == "rnn_seq2seq";
}

std::string tau_text(double tau) {
    if (std::isnan(tau)) return "not measurable";
    if (std::isinf(tau)) return "∞ (no growth)";
    return format_number(tau, 3);
}

}  // namespace

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

nlohmann::json length_sweep_json(const CompareConfig& config, const SweepSummary& sweep) {
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json result = {{"max_lengths", config.length_sweep->max_lengths}, {"points", nlohmann::json::array()},
                             {"fits", nlohmann::json::array()}};
    for (const auto& p : sweep.points)
        result["points"].push_back({{"variant", p.variant}, {"seed", p.seed}, {"max_length", p.max_length},
                                    {"input_length", p.input_length}, {"test_token_accuracy", finite(p.token_accuracy)}});
    for (const VariantSweep& curve : sweep.variants) {
        if (!curve.fit) continue;
        const ErrorGrowthFit& fit = *curve.fit;
        // τ = ∞ (no growth) is written as the string "inf": JSON has no infinity
        result["fits"].push_back({{"variant", curve.variant},
                                  {"tau", std::isinf(fit.tau) ? nlohmann::json("inf") : finite(fit.tau)},
                                  {"error_at_zero", finite(fit.error_at_zero)}, {"r_squared", finite(fit.r_squared)},
                                  {"points", fit.points}});
    }
    return result;
}

}  // namespace tf
