// Ideal kernels of the tasks, and the share of one a measured kernel covers.
#include "analysis/task_kernel.h"

#include <algorithm>
#include <limits>

#include "autograd/error.h"

namespace tf {

namespace {

// A task whose output position i needs source position position_of(i, S) while i < |tgt|.
template <class PositionOf>
Matrix one_position_per_output(int64_t targets, int64_t sources, PositionOf position_of) {
    Matrix ideal(static_cast<std::size_t>(targets + 1), std::vector<double>(static_cast<std::size_t>(sources), 0.0));
    for (int64_t i = 0; i < targets; ++i) {
        const int64_t j = position_of(i, sources);
        if (j >= 0 && j < sources) ideal[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = 1.0;
    }
    return ideal;
}

Matrix every_position_per_output(int64_t targets, int64_t sources) {
    Matrix ideal(static_cast<std::size_t>(targets + 1), std::vector<double>(static_cast<std::size_t>(sources), 1.0));
    ideal.back().assign(static_cast<std::size_t>(sources), 0.0);   // <eos>
    return ideal;
}

}  // namespace

std::optional<Matrix> ideal_kernel(const std::string& task, const train::Example& example) {
    const auto targets = static_cast<int64_t>(example.tgt.size());
    const auto sources = static_cast<int64_t>(example.src.size());
    // copy: y_i = x_i; recall: src = k keys, distractors, "?", and y_i = key i = x_i
    if (task == "copy" || task == "autoencode" || task == "recall")
        return one_position_per_output(targets, sources, [](int64_t i, int64_t) { return i; });
    if (task == "reverse") return one_position_per_output(targets, sources, [](int64_t i, int64_t S) { return S - 1 - i; });
    // each sorted output and each digit of a sum depends on every input symbol
    if (task == "sort" || task == "addition") return every_position_per_output(targets, sources);
    if (task == "associative_recall") {
        // src = k1 v1 … kL vL "?" kq: the answer is the value after the key equal to kq, so it
        // needs kq (the last position) and that value.
        Matrix ideal = one_position_per_output(targets, sources, [](int64_t, int64_t S) { return S - 1; });
        for (int64_t j = 0; j + 1 < sources - 2; j += 2)
            if (example.src[static_cast<std::size_t>(j)] == example.src.back())
                for (int64_t i = 0; i < targets; ++i) ideal[static_cast<std::size_t>(i)][static_cast<std::size_t>(j + 1)] = 1.0;
        return ideal;
    }
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
