// The comparison report's figures: learning curves, accuracy by position, gradient flow, the
// dependency kernels beside the task's ideal one, and the viewer of attention maps.
#pragma once
#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_columns.h"
#include "analysis/reports/report.h"

namespace tf {

void write_curves(Report& report, const CompareConfig& config, const Runs& runs);

}  // namespace tf
