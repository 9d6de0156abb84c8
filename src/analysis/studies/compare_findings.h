// The findings box at the top of a comparison report: what its numbers say, in sentences generated
// from them — the ranking and who beat whom on every seed, which verdicts held, what the budget held
// equal, and which runs were still improving when it ran out (analysis/studies/compare_convergence.h).
#pragma once
#include <string>
#include <vector>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_columns.h"
#include "analysis/studies/compare_predictions.h"
#include "analysis/studies/own_predictions.h"

namespace tf {

// One sentence (or a few) per finding, in Markdown.
std::vector<std::string> findings(const CompareConfig& config, const Runs& runs, const std::vector<Prediction>& predictions,
                                  const std::vector<JudgedOwnPrediction>& own_predictions);

}  // namespace tf
