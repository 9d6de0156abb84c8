// The length sweep's part of a comparison report: every variant's test accuracy against input
// length, and each recurrent variant's fitted error growth (analysis/length_sweep.h).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare.h"
#include "analysis/compare_runs.h"
#include "analysis/length_sweep.h"
#include "analysis/report.h"

namespace tf {

// A variant's sweep: for each max length, the mean over seeds of the input length and of the test
// token accuracy; and for a recurrent variant, its fitted error growth.
struct VariantSweep {
    std::string variant;
    std::vector<double> input_lengths, accuracies;
    std::optional<ErrorGrowthFit> fit;
};

struct SweepSummary {
    std::vector<LengthPoint> points;     // one per sweep run
    std::vector<VariantSweep> variants;  // in the config's order
};


SweepSummary summarize_sweep(const CompareConfig& config, std::vector<LengthPoint> points);

// The report's section ...
void write_length_sweep(Report& report, const CompareConfig& config, const SweepSummary& sweep);
// ... and report.json's "length_sweep".
nlohmann::json length_sweep_json(const CompareConfig& config, const SweepSummary& sweep);

}  // namespace tf
