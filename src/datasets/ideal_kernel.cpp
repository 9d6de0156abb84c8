// The shapes ideal kernels are made of.
#include "datasets/ideal_kernel.h"

namespace tf::train {

IdealKernel one_position_per_output(int64_t targets, int64_t sources,
                                    const std::function<int64_t(int64_t i, int64_t S)>& position_of) {
    IdealKernel ideal(static_cast<std::size_t>(targets + 1), std::vector<double>(static_cast<std::size_t>(sources), 0.0));
    for (int64_t i = 0; i < targets; ++i) {
        const int64_t j = position_of(i, sources);
        if (j >= 0 && j < sources) ideal[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = 1.0;
    }
    return ideal;
}

IdealKernel every_position_per_output(int64_t targets, int64_t sources) {
    IdealKernel ideal(static_cast<std::size_t>(targets + 1), std::vector<double>(static_cast<std::size_t>(sources), 1.0));
    ideal.back().assign(static_cast<std::size_t>(sources), 0.0);   // <eos>
    return ideal;
}

}  // namespace tf::train
