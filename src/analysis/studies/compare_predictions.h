// The predictions of docs/math/theory.md §7 for a pure RNN against an attention model, each
// measured once per seed, given its 95 % interval over seeds (analysis/studies/seed_interval.h) and judged
// against its predicted range.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_columns.h"
#include "analysis/studies/own_predictions.h"
#include "analysis/reports/report.h"
#include "analysis/studies/seed_interval.h"

namespace tf {

struct Prediction {
    std::string id, claim;
    std::string measured;        // the interval and what it is of, in words
    SeedInterval interval;       // over seeds
    double low, high;            // the predicted range
    Verdict verdict;
    std::string verdict_text;
    std::string confound;        // what else differs between the two models, in words (analysis/studies/compare_confounds.h)
};

// The config must name the two variants (config.predictions).
std::vector<Prediction> check_predictions(const CompareConfig& config, const Runs& runs);

// The page's warning when a verdict rests on fewer than kFewestSeedsForVerdict seeds; "" when none does.
std::string few_seeds_warning(const std::vector<Prediction>& predictions, const std::vector<JudgedOwnPrediction>& own_predictions);

// The report's section (report.md and report.html alike) ...
void write_predictions(Report& report, const std::vector<Prediction>& predictions);
// ... and report.json's "predictions".
nlohmann::json predictions_json(const std::vector<Prediction>& predictions);

}  // namespace tf
