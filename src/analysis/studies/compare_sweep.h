// The length sweep's part of a comparison report: every variant's test accuracy against input
// length, its error growth error(n) = e₀·exp(n/τ) fitted per seed with intervals over seeds
// (analysis/studies/error_growth_seeds.h), and what differs between the variants
// (analysis/studies/error_growth_contrast.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_runs.h"
#include "analysis/studies/error_growth_seeds.h"
#include "analysis/reports/report.h"

namespace tf {

// A variant's sweep: for each max length, the mean over seeds of the input length and of the test
// token accuracy; and its error growth, one fit per seed.
struct VariantSweep {
    std::string variant;
    std::vector<double> input_lengths, accuracies;
    std::vector<int64_t> seeds;    // the seed of each of growth.per_seed
    ErrorGrowthOverSeeds growth;
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
