// Was a run still learning when its budget ran out? A comparison at equal steps measures each model
// where the budget stops it: one whose loss is still falling fast is measured before it has learned
// what it can, and its place in the ranking may say more about its speed than its ability.
//
// The late fall of a run is the share by which its validation loss fell between its last two
// evaluations,
//     fall = (L_{k−1} − L_k) / L_{k−1},
// or, for a run evaluated fewer than two times, the same of its mean logged training loss over the
// last tenth of its steps against the tenth before. A run is still improving when fall > 5 %.
#pragma once
#include <string>
#include <vector>

#include "analysis/studies/compare_columns.h"

namespace tf {

constexpr double kStillImprovingFall = 0.05;

struct LateFall {
    double share = 0;        // the fall above; NaN when the run logged too little to tell
    double over_steps = 0;   // the steps between the two losses compared
    bool validation = false; // from the validation loss (else the training loss)
};

LateFall late_fall(const RunMeasurements& run);

// The mean over `variant`'s seeds of the late fall, and of the steps it spans.
LateFall mean_late_fall(const Runs& runs, const std::string& variant);

bool still_improving(const LateFall& fall);

// "−15 % over its last 100 steps (validation loss)".
std::string late_fall_text(const LateFall& fall);

}  // namespace tf
