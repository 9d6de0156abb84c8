// Gradient probes: how much each output position depends on each input position.
//
// Dependency kernel (docs/math/theory.md §4):  K(i, j) = ‖∂y_i / ∂x_j‖_F, y_i the logits at target
// position i, x_j the model's input vector at source position j (probe_inputs in models/model.h).
// One forward and one backward give all of it: the example is repeated once per (i, probe) as a
// batch, and row r's output gradient is a random vector u at position i only, so row r's input
// gradient is uᵀ·∂y_i/∂x — and E‖uᵀJ‖² = ‖J‖²_F for u ~ N(0, I) (Hutchinson's estimator). Entries
// that are exactly 0 (a causal model's future) stay exactly 0.
#pragma once
#include <vector>

#include "models/model.h"

namespace tf {

using Matrix = std::vector<std::vector<double>>;  // [row][column]

// The most random projections a dependency kernel takes (analyze --probes, a comparison's
// analysis.probes): each is one more backward row per output position, and 1000 already gives
// the kernel to about 3 %.
inline constexpr int64_t kMaxProbes = 1000;

// K(i, j) for one example (row 0 of `example`); `probes` random projections per output position,
// or, with probes ≤ 0, exactly (one backward row per vocabulary entry: fine for small V).
Matrix dependency_kernel(SequenceModel& model, const ModelInput& example, int64_t probes, Rng& rng);

// ‖∂L_i/∂x_j‖ for one example: L_i the cross-entropy at target position i (targets: (1, T)).
Matrix loss_gradient_norms(SequenceModel& model, const ModelInput& example, const IndexTensor& targets, int64_t pad);

// Effective receptive field (docs/math/theory.md §5): |{j : K(i, j) > ε · max_j K(i, j)}| for each i.
std::vector<int64_t> effective_receptive_field(const Matrix& kernel, double relative_epsilon);

// Mean of matrix[i][j] over the pairs at each distance d = offset + i − j (index d of the result;
// pairs with d < 0 are skipped). With output i on the target and input j on the source, offset = S
// makes d the distance in the stream a recurrence reads — source, then target — so S − j + i steps
// separate them; for a language model (inputs and outputs on one sequence) offset = 0, d = i − j.
std::vector<double> mean_by_distance(const Matrix& matrix, int64_t offset);

// Row 0 of `input` repeated `count` times (sources, targets, masks and lengths).
ModelInput repeat_example(const ModelInput& input, int64_t count);

}  // namespace tf
