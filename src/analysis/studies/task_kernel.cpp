// Ideal kernels of the tasks, and the share of one a measured kernel covers.
#include "analysis/studies/task_kernel.h"

#include <algorithm>
#include <limits>

#include "autograd/error.h"
#include "datasets/ideal_kernel.h"
#include "datasets/synthetic.h"

namespace tf {

std::optional<Matrix> ideal_kernel(const train::DataTask& task, const train::Example& example) {
    if (task.kind == train::TaskKind::autoencode)   // y_i = x_i
        return train::one_position_per_output(static_cast<int64_t>(example.tgt.size()), static_cast<int64_t>(example.src.size()),
                                              [](int64_t i, int64_t) { return i; });
    if (task.kind == train::TaskKind::synthetic && task.synthetic->ideal_kernel) return task.synthetic->ideal_kernel(example);
    return std::nullopt;
}

double share_of_needed_positions_used(const Matrix& kernel, const Matrix& ideal, double relative_epsilon) {
    if (kernel.size() != ideal.size())
        throw ValueError("share_of_needed_positions_used: a kernel of " + std::to_string(kernel.size()) +
                         " rows against an ideal of " + std::to_string(ideal.size()));
    double needed = 0, used = 0;
    for (std::size_t i = 0; i < kernel.size(); ++i) {
        if (kernel[i].size() != ideal[i].size())
            throw ValueError("share_of_needed_positions_used: row " + std::to_string(i) + " has " +
                             std::to_string(kernel[i].size()) + " columns against the ideal's " + std::to_string(ideal[i].size()));
        const double largest = kernel[i].empty() ? 0 : *std::max_element(kernel[i].begin(), kernel[i].end());
        for (std::size_t j = 0; j < kernel[i].size(); ++j) {
            if (ideal[i][j] == 0) continue;
            needed += 1;
            used += kernel[i][j] > relative_epsilon * largest && largest > 0;
        }
    }
    return needed > 0 ? used / needed : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace tf
