// The findings box (analysis/studies/compare_findings.h).
#include "analysis/studies/compare_findings.h"

#include <algorithm>
#include <cmath>

#include "analysis/studies/compare_budget.h"
#include "analysis/studies/compare_convergence.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/reports/report.h"

namespace tf {

namespace {

std::vector<double> accuracies(const Runs& runs, const std::string& variant) {
    return collect(runs, variant, &RunMeasurements::test, &train::EvalMetrics::token_accuracy);
}

// The variants from the highest mean test token accuracy to the lowest.
std::vector<std::string> ranking(const CompareConfig& config, const Runs& runs) {
    std::vector<std::string> names;
    for (const auto& variant : config.variants) names.push_back(variant.name);
    std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return mean_of(accuracies(runs, a)) > mean_of(accuracies(runs, b));
    });
    return names;
}

std::string ranking_finding(const std::vector<std::string>& ranked, const Runs& runs, int64_t seeds) {
    std::string text = "**Ranking** by test token accuracy (mean of " + std::to_string(seeds) + " seed" + (seeds == 1 ? "" : "s") + "): ";
    for (std::size_t i = 0; i < ranked.size(); ++i)
        text += (i ? ", " : "") + ranked[i] + " " + format_number(mean_of(accuracies(runs, ranked[i])), 3);
    return text + ".";
}

// Each neighbour pair of the ranking, seed by seed: the runs of a seed share the data order.
std::string seed_by_seed_finding(const std::vector<std::string>& ranked, const Runs& runs) {
    std::string settled, unsettled;
    for (std::size_t i = 0; i + 1 < ranked.size(); ++i) {
        const std::vector<double> wins = per_seed(accuracies(runs, ranked[i]), accuracies(runs, ranked[i + 1]), difference);
        const auto won = std::count_if(wins.begin(), wins.end(), [](double d) { return d > 0; });
        const std::string pair = ranked[i] + " over " + ranked[i + 1] + " on " + std::to_string(won) + " of " + std::to_string(wins.size());
        (won == static_cast<long>(wins.size()) ? settled : unsettled) += (pair + "; ");
    }
    std::string text = "**Seed by seed**: ";
    if (!settled.empty()) text += "on every seed: " + settled.substr(0, settled.size() - 2) + ".";
    if (!unsettled.empty())
        text += std::string(settled.empty() ? "" : " ") + "Not on every seed, so their order is not settled: " +
                unsettled.substr(0, unsettled.size() - 2) + ".";
    return text;
}

std::string verdicts_finding(const std::vector<Prediction>& predictions, const std::vector<JudgedOwnPrediction>& own_predictions) {
    std::string text = "**Verdicts**: ";
    bool first = true;
    for (const Prediction& p : predictions) text += (first ? "" : "; ") + p.claim + ": " + p.verdict_text, first = false;
    for (const JudgedOwnPrediction& p : own_predictions)
        text += (first ? "“" : "; “") + markdown::literal(p.prediction.claim) + "”: " + p.verdict_text, first = false;
    return text + ". Each verdict's confound is beside it below.";
}

std::string budget_finding(const CompareConfig& config, const std::vector<std::string>& ranked, const Runs& runs) {
    std::string text = "**Budget**: " + budget_text(config.budget) + ". ";
    std::vector<std::string> steps;
    for (const std::string& variant : ranked) steps.push_back(format_count(mean_of(collect(runs, variant, &RunMeasurements::steps))));
    const bool equal = std::all_of(steps.begin(), steps.end(), [&](const std::string& s) { return s == steps.front(); });
    if (equal) {
        text += "Every run trained " + steps.front() + " steps";
    } else {
        text += "Steps trained (mean over seeds): ";
        for (std::size_t i = 0; i < ranked.size(); ++i) text += (i ? ", " : "") + ranked[i] + " " + steps[i];
    }
    const std::string cap = format_count(mean_of(collect(runs, ranked.front(), &RunMeasurements::max_steps)));
    if (config.budget.kind != BudgetKind::steps && config.budget.kind != BudgetKind::flops) text += " (cap " + cap + ")";
    text += ".";
    if (config.budget.kind == BudgetKind::steps)
        text += " At equal steps a ranking says how fast each model learns per step as much as what it can learn.";
    return text;
}

// Which variants were still improving, and which of them rank below another: those may not have
// lost, only not finished.
std::string convergence_finding(const CompareConfig& config, const std::vector<std::string>& ranked, const Runs& runs) {
    std::vector<std::string> improving, behind;
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        const LateFall fall = mean_late_fall(runs, ranked[i]);
        if (!still_improving(fall)) continue;
        improving.push_back(ranked[i] + " " + late_fall_text(fall));
        if (i > 0) behind.push_back(ranked[i]);
    }
    const std::string threshold = format_number(kStillImprovingFall * 100, 2) + " %";
    if (improving.empty())
        return "**Converged**: every variant's loss fell by less than " + threshold + " over its last evaluations.";
    std::string text = "**Still improving when training ended** (loss falling by more than " + threshold + "): ";
    for (std::size_t i = 0; i < improving.size(); ++i) text += (i ? "; " : "") + improving[i];
    text += ".";
    if (!behind.empty()) {
        std::string names;
        for (std::size_t i = 0; i < behind.size(); ++i) names += (i ? (i + 1 == behind.size() ? " and " : ", ") : "") + behind[i];
        text += " " + names + (behind.size() == 1 ? " ranks" : " rank") + " below " + ranked.front() +
                " while still improving: at this budget " + (behind.size() == 1 ? "it" : "they") +
                " may not have lost, only not finished.";
        if (config.budget.kind != BudgetKind::until_plateau)
            text += " To compare what each model reaches, give the comparison `\"budget\": {\"until_plateau\": 3}` and a larger "
                    "`train.max_steps` as the cap.";
    }
    return text;
}

}  // namespace

std::vector<std::string> findings(const CompareConfig& config, const Runs& runs, const std::vector<Prediction>& predictions,
                                  const std::vector<JudgedOwnPrediction>& own_predictions) {
    const std::vector<std::string> ranked = ranking(config, runs);
    std::vector<std::string> lines = {ranking_finding(ranked, runs, static_cast<int64_t>(config.seeds.size())),
                                      seed_by_seed_finding(ranked, runs)};
    if (!predictions.empty() || !own_predictions.empty()) lines.push_back(verdicts_finding(predictions, own_predictions));
    lines.push_back(budget_finding(config, ranked, runs));
    lines.push_back(convergence_finding(config, ranked, runs));
    return lines;
}

}  // namespace tf
