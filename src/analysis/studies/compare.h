// `tapeformer compare`: train several model variants on the same data, splits, seeds and budget,
// measure each the same way, and write one report — the table, the curves, accuracy by position,
// gradient norm by distance, dependency kernels — and, when the config names a pure RNN and an
// attention variant, the predictions of docs/math/theory.md §7 checked against what was measured;
// when it states predictions of its own, those too.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/studies/compare_config.h"
#include "autograd/kernels/mode.h"
#include "config/json_reader.h"
#include "distributed/communicator.h"
#include "train/trainer.h"

namespace tf {

// SIGINT/SIGTERM, or the step listener, stopped a training run (after it saved): run the comparison
// again to continue.
class CompareInterrupted : public Error {
public:
    CompareInterrupted(const std::string& message, int signal_number) : Error(message), signal_number(signal_number) {}
    int signal_number;   // SIGINT or SIGTERM; 0 when the step listener stopped it
};

struct CompareOptions {
    std::string out_dir;   // default runs/<name>
    std::string command;   // how it was invoked, quoted in the report
    bool quiet = false;
    // The processes that share out the runs (each run trains in one of them alone); rank 0 measures
    // every run and writes the report. nullptr: this process alone.
    distributed::Communicator* ranks = nullptr;
    // Also write each of the report's figures as figures_dir/<name>.svg at slide size (svg::slide());
    // created if missing. "": none.
    std::string figures_dir = {};
    // Hears every step of every run this process trains, and may stop the comparison (train/trainer.h).
    train::StepListener on_step = {};
};

// Trains (or reuses finished runs, or resumes unfinished ones), measures, writes the report.
// Returns the path of report.md; "" on ranks other than 0.
std::string run_compare(const CompareConfig& config, const CompareOptions& options);

}  // namespace tf
