// Ideal dependency kernels: which source positions each correct output is a function of
// (docs/experiments.md, "Context used"). A task states its own with these shapes; analysis/
// task_kernel.h measures how much of it a model's kernel covers.
//
// The kernel of one example is (|tgt| + 1) × |src|: ideal(i, j) = 1 when target position i needs
// source position j. The final <eos> row needs only the length, which no single position carries,
// so it marks none.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

namespace tf::train {

using IdealKernel = std::vector<std::vector<double>>;  // [target position][source position]

// Output i needs the one source position position_of(i, S) (S = |src|), for i < |tgt|; a
// position outside [0, S) marks none.
IdealKernel one_position_per_output(int64_t targets, int64_t sources,
                                    const std::function<int64_t(int64_t i, int64_t S)>& position_of);
// Every output (but <eos>) needs every source position.
IdealKernel every_position_per_output(int64_t targets, int64_t sources);

}  // namespace tf::train
