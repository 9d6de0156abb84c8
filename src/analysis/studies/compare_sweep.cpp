// The length sweep's section of a comparison report (analysis/studies/compare_sweep.h).
#include "analysis/studies/compare_sweep.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "analysis/studies/error_growth_contrast.h"
#include "analysis/reports/markdown_text.h"

namespace tf {

namespace {

// Points along each fitted curve: enough for the exponential to look smooth.
constexpr int kFitCurvePoints = 64;

// The vocabularies of the sweep's runs (one, unless a variant's data differ).
std::set<int64_t> vocabularies(const SweepSummary& sweep) {
    std::set<int64_t> sizes;
    for (const LengthPoint& p : sweep.points)
        if (p.vocabulary > 0) sizes.insert(p.vocabulary);
    return sizes;
}

// τ's interval, with the seeds whose error did not grow named: "4.8 [3.9, ∞]; no growth in 1 of 3 seeds".
std::string tau_cell(const ErrorGrowthOverSeeds& growth) {
    std::string text = tau_interval_text(growth);
    if (growth.seeds_without_growth > 0 && growth.growth_rate.seeds > 1)
        text += "; no growth in " + std::to_string(growth.seeds_without_growth) + " of " +
                std::to_string(growth.growth_rate.seeds) + " seeds";
    return text;
}

}  // namespace

SweepSummary summarize_sweep(const CompareConfig& config, std::vector<LengthPoint> points) {
    SweepSummary summary{std::move(points), {}};
    for (const auto& variant : config.variants) {
        VariantSweep& curve = summary.variants.emplace_back();
        curve.variant = variant.name;
        for (const int64_t max_length : config.length_sweep->max_lengths) {
            std::vector<double> lengths, accuracies;
            for (const auto& p : summary.points)
                if (p.variant == variant.name && p.max_length == max_length)
                    lengths.push_back(p.input_length), accuracies.push_back(p.token_accuracy);
            curve.input_lengths.push_back(mean_of(lengths));
            curve.accuracies.push_back(mean_of(accuracies));
        }
        // One fit per seed, over that seed's points at every max length.
        std::vector<ErrorGrowthFit> fits;
        for (const int64_t seed : config.seeds) {
            std::vector<double> lengths, accuracies;
            std::vector<int64_t> tokens;
            for (const int64_t max_length : config.length_sweep->max_lengths)
                for (const auto& p : summary.points)
                    if (p.variant == variant.name && p.seed == seed && p.max_length == max_length)
                        lengths.push_back(p.input_length), accuracies.push_back(p.token_accuracy), tokens.push_back(p.target_tokens);
            if (lengths.empty()) continue;
            fits.push_back(fit_error_growth(lengths, accuracies, tokens));
            curve.seeds.push_back(seed);
        }
        curve.growth = error_growth_over_seeds(std::move(fits));
    }
    return summary;
}

void write_length_sweep(Report& report, const CompareConfig& config, const SweepSummary& sweep) {
    report.heading(2, "Length sweep");
    report.paragraph(
        "Every variant trained again, same budget, at each maximum input length " +
        nlohmann::json(config.length_sweep->max_lengths).dump() +
        " (data.max_length), and tested; the x axis is the mean input length of each test split, the curves the mean over "
        "seeds. A model that carries its whole input through one state should see its error grow with length. Each seed's "
        "points are fitted with error(n) = e₀·exp(n/τ) (least squares of log(1 − token accuracy) on n): τ is the extra "
        "input positions that multiply the error by e, e₀ the error the line predicts at length 0. A point with no error "
        "is kept, as the error half a wrong token would be (0.5 / its test target tokens). The table gives τ and e₀ with "
        "95 % intervals over seeds (τ's taken on the growth rate 1/τ, so a seed without growth counts); the curves named "
        "\"… fit\" draw accuracy(n) = 1 − e₀·exp(n/τ) with those centres, where it is above 0. docs/experiments.md "
        "explains the fit.");

    svg::LinePlot plot{"Test token accuracy by input length", "mean input length (positions)", "test token accuracy (mean over seeds)",
                       {}, false};
    double x_low = std::numeric_limits<double>::infinity(), x_high = -x_low;
    for (const VariantSweep& curve : sweep.variants) {
        plot.series.push_back({curve.variant, curve.input_lengths, curve.accuracies});
        for (double n : curve.input_lengths)
            if (std::isfinite(n)) x_low = std::min(x_low, n), x_high = std::max(x_high, n);
    }
    if (std::isfinite(x_low)) {
        for (const VariantSweep& curve : sweep.variants) {
            // accuracy(n) = 1 − e₀·exp(r·n), r = 1/τ the mean growth rate; left out where below 0, which an
            // accuracy cannot be
            const double e0 = curve.growth.error_at_zero.mean, rate = curve.growth.growth_rate.mean;
            if (!std::isfinite(e0) || !std::isfinite(rate)) continue;
            svg::Series fit;
            fit.name = curve.variant + " fit";
            fit.markers = svg::Markers::off, fit.dashed = true;
            for (int k = 0; k < kFitCurvePoints; ++k) {
                const double n = x_low + (x_high - x_low) * k / (kFitCurvePoints - 1);
                const double accuracy = 1 - e0 * std::exp(rate * n);
                fit.x.push_back(n), fit.y.push_back(accuracy >= 0 ? accuracy : std::numeric_limits<double>::quiet_NaN());
            }
            plot.series.push_back(std::move(fit));
        }
        // Chance token accuracy: a guess drawn uniformly from the V ids the output layer scores is right
        // with probability 1/V at every target position.
        const std::set<int64_t> sizes = vocabularies(sweep);
        for (const int64_t size : sizes) {
            const double chance = 1.0 / static_cast<double>(size);
            plot.series.push_back({sizes.size() == 1 ? "chance (1 / vocabulary)" : "chance (1 / " + std::to_string(size) + ")",
                                   {x_low, x_high}, {chance, chance}, {}, {}, svg::Markers::off, true});
        }
    }
    report.plot("length_sweep", plot);

    std::vector<std::vector<std::string>> rows;
    int64_t zero_error_points = 0, points = 0;
    for (const VariantSweep& curve : sweep.variants) {
        const ErrorGrowthOverSeeds& growth = curve.growth;
        zero_error_points += growth.zero_error_points, points += growth.points;
        rows.push_back({markdown::literal(curve.variant), tau_cell(growth), error_at_zero_interval_text(growth),
                        std::isnan(growth.r_squared) ? "–" : format_number(growth.r_squared, 2),
                        std::to_string(growth.points) + " (" + std::to_string(curve.seeds.size()) + " seeds)",
                        std::to_string(growth.zero_error_points)});
    }
    report.table({"variant", "τ (positions), 95 % over seeds", "e₀, 95 % over seeds", "R² (mean over seeds)", "points fitted",
                  "points at zero error (set to ½ token)"},
                 rows);

    std::string notes = "Points at zero error: " + std::to_string(zero_error_points) + " of " + std::to_string(points) +
                        (zero_error_points > 0 ? " (corrected to 0.5 token: error = 0.5 / test target tokens)." : ".");
    if (zero_error_points > 0)
        notes += " A perfect point says only that the error is below 1 / T; half a token is a choice inside that, and a "
                 "variant with such points has a τ and e₀ that rest partly on it.";
    const std::set<int64_t> sizes = vocabularies(sweep);
    if (!sizes.empty()) {
        notes += " Chance token accuracy, a uniform guess over the vocabulary of V tokens, is 1/V:";
        for (const int64_t size : sizes) notes += " 1/" + std::to_string(size) + " = " + format_number(1.0 / static_cast<double>(size), 2);
        notes += ".";
    }
    report.paragraph(notes);
    for (std::size_t a = 0; a < sweep.variants.size(); ++a)
        for (std::size_t b = a + 1; b < sweep.variants.size(); ++b)
            report.paragraph(error_growth_contrast(markdown::literal(sweep.variants[a].variant), sweep.variants[a].growth,
                                                   markdown::literal(sweep.variants[b].variant), sweep.variants[b].growth));
}

nlohmann::json length_sweep_json(const CompareConfig& config, const SweepSummary& sweep) {
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    // τ = ∞ (no growth) is written as the string "inf": JSON has no infinity
    const auto tau_json = [&](double tau) { return std::isinf(tau) && tau > 0 ? nlohmann::json("inf") : finite(tau); };
    nlohmann::json result = {{"max_lengths", config.length_sweep->max_lengths}, {"points", nlohmann::json::array()},
                             {"fits", nlohmann::json::array()}, {"contrasts", nlohmann::json::array()}};
    for (const auto& p : sweep.points)
        result["points"].push_back({{"variant", p.variant}, {"seed", p.seed}, {"max_length", p.max_length},
                                    {"input_length", p.input_length}, {"test_token_accuracy", finite(p.token_accuracy)},
                                    {"target_tokens", p.target_tokens}, {"vocabulary", p.vocabulary}});
    for (const VariantSweep& curve : sweep.variants) {
        const ErrorGrowthOverSeeds& growth = curve.growth;
        const bool has_interval = growth.growth_rate.seeds > 1;
        nlohmann::json per_seed = nlohmann::json::array();
        for (std::size_t s = 0; s < growth.per_seed.size(); ++s) {
            const ErrorGrowthFit& fit = growth.per_seed[s];
            per_seed.push_back({{"seed", curve.seeds[s]}, {"tau", tau_json(fit.tau)}, {"growth_rate", finite(fit.growth_rate)},
                                {"error_at_zero", finite(fit.error_at_zero)}, {"r_squared", finite(fit.r_squared)},
                                {"points", fit.points}, {"zero_error_points", fit.zero_error_points}});
        }
        result["fits"].push_back(
            {{"variant", curve.variant},
             {"tau", tau_json(growth.tau)},
             {"tau_interval", has_interval ? nlohmann::json({tau_json(growth.tau_low), tau_json(growth.tau_high)}) : nlohmann::json(nullptr)},
             {"error_at_zero", finite(growth.error_at_zero.mean)},
             {"error_at_zero_interval", has_interval ? nlohmann::json({finite(growth.error_at_zero.low), finite(growth.error_at_zero.high)})
                                                     : nlohmann::json(nullptr)},
             {"r_squared", finite(growth.r_squared)},
             {"points", growth.points},
             {"zero_error_points", growth.zero_error_points},
             {"seeds", growth.growth_rate.seeds},
             {"seeds_without_growth", growth.seeds_without_growth},
             {"per_seed", per_seed}});
    }
    for (std::size_t a = 0; a < sweep.variants.size(); ++a)
        for (std::size_t b = a + 1; b < sweep.variants.size(); ++b)
            result["contrasts"].push_back(error_growth_contrast(sweep.variants[a].variant, sweep.variants[a].growth,
                                                                sweep.variants[b].variant, sweep.variants[b].growth));
    return result;
}

}  // namespace tf
