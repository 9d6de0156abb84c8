// A comparison config's own predictions, judged (docs/experiments.md, "Your own predictions"). For
// each seed s, the difference of one per-run measure m (analysis/studies/run_measures.h) between two variants,
//     d_s = m(first, seed s) − m(second, seed s),
// then its 95 % interval over seeds and the three-way verdict of analysis/studies/seed_interval.h against
// the range [low, high] the config committed to before the runs.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_runs.h"
#include "analysis/reports/report.h"
#include "analysis/studies/seed_interval.h"

namespace tf {

struct JudgedOwnPrediction {
    OwnPrediction prediction;
    std::vector<double> differences;   // d_s, one per seed (NaN where either run has no value)
    SeedInterval interval;             // over the finite d_s
    Verdict verdict = Verdict::undecided;
    std::string verdict_text;
    std::string confound;              // what else differs between the two variants (analysis/studies/compare_confounds.h)
};

// One prediction from the two variants' values of its measure, each listed by seed in the same order.
JudgedOwnPrediction judge_own_prediction(const OwnPrediction& prediction, const std::vector<double>& first,
                                         const std::vector<double>& second);

// Every own prediction of the config, from its measured runs.
std::vector<JudgedOwnPrediction> judge_own_predictions(const CompareConfig& config, const std::vector<RunMeasurements>& runs);

// The report's section (report.md and report.html alike) ...
void write_own_predictions(Report& report, const std::vector<JudgedOwnPrediction>& judged);
// ... and report.json's "own_predictions".
nlohmann::json own_predictions_json(const std::vector<JudgedOwnPrediction>& judged);

}  // namespace tf
