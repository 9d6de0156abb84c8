// The per-run measures a comparison config's own predictions may name (docs/experiments.md, "Your
// own predictions"): each is one number `compare` already measures for every run, and report.json
// writes it for each run under the same name (the decoded scores as test_decoded.*). The table is the place to add one: a row is a name, what the
// number is, how to read one run's value, the values it can take (its interval over seeds stays
// inside them, analysis/studies/seed_interval.h), and how to take it from a run's measurements;
// docs/experiments.md lists the same rows (a test holds the two together).
#pragma once
#include <span>
#include <string>
#include <vector>

#include "analysis/studies/run_measurements.h"
#include "analysis/studies/seed_interval.h"

namespace tf {

// What else differs between two variants besides the one thing a difference of this measure is
// read as (analysis/studies/compare_confounds.h writes each in words, with the comparison's numbers).
enum class Confound {
    budget_and_size,   // a quality: measured at the budget's end (still improving?) on models of different sizes
    loss_level,        // a gradient ratio: divides by the mean gradient, smaller at a lower loss
    reach_not_use,     // a kernel's reach: the gradient gets to a position, which is not using it well
    input_length,      // a receptive field: cannot exceed the input it was measured on
    machine_load,      // a speed: what else the machine ran at the time
    none,              // a count the config fixes
};

struct RunMeasure {
    const char* name;          // as a prediction's "measure" names it
    const char* description;   // what the number is
    const char* reading;       // one run's value: its unit or range, and which way is better
    Domain domain;             // the values one run's number can take
    Confound confound;         // what a difference between two variants' values may owe to something else
    double (*of)(const RunMeasurements& run);
};

// Every measure, in the order docs/experiments.md lists them.
std::span<const RunMeasure> run_measures();

// The row called `name`; nullptr when there is none.
const RunMeasure* find_run_measure(const std::string& name);

std::vector<std::string> run_measure_names();

}  // namespace tf
