// The dependency kernel a task asks for, and how much of it a model's kernel covers
// (docs/experiments.md, "Context used").
//
// The ideal kernel of a task marks, for each target position i, the source positions j that the
// correct output y_i is a function of: N(i) = {j : ideal(i, j) = 1} (datasets/ideal_kernel.h).
// Autoencoding needs j = i (the identity); a synthetic task states its own in its row of the task
// table (datasets/synthetic.h: copying the identity, reversing j = S − 1 − i, sorting every position). A model uses a needed pair (i, j) when K(i, j) > ε · max_j' K(i, j'), the
// effective-receptive-field test of docs/math/theory.md §5; the share used is
//     (Σ_i |{j ∈ N(i) : K(i, j) > ε · max K(i, ·)}|) / (Σ_i |N(i)|)
// — 1 when the model reaches every position the task needs, whatever else it also reads.
#pragma once
#include <optional>
#include <string>

#include "analysis/studies/gradient_probe.h"
#include "datasets/dataset.h"

namespace tf {

// The ideal kernel of `task` for one example, (|tgt| + 1) × |src| like the measured kernel; none
// for a task whose outputs need no fixed positions (a language model, a jsonl seq2seq task, a
// synthetic task whose row states none).
std::optional<Matrix> ideal_kernel(const train::DataTask& task, const train::Example& example);

// The share above; NaN when the ideal kernel needs no position at all. Kernels of one shape.
double share_of_needed_positions_used(const Matrix& kernel, const Matrix& ideal, double relative_epsilon);

}  // namespace tf
