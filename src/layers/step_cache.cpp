// Step caches: sizes, modes and composition.
#include "layers/step_cache.h"

#include <algorithm>

namespace tf {

int64_t cache_bytes(StepCache& cache) {
    int64_t bytes = 0;
    for (const Tensor* tensor : cache.batch_tensors())
        if (tensor->defined()) bytes += static_cast<int64_t>(tensor->bytes());
    return bytes;
}

// reruns_prefix < position_wise < cached in what they need, but a chain can only step if every
// layer can: any reruns_prefix makes it reruns_prefix, else any cached makes it cached.
StepMode weakest_step_mode(const std::vector<StepMode>& modes) {
    if (std::ranges::find(modes, StepMode::reruns_prefix) != modes.end()) return StepMode::reruns_prefix;
    if (std::ranges::find(modes, StepMode::cached) != modes.end()) return StepMode::cached;
    return StepMode::position_wise;
}

std::vector<Tensor*> StepCaches::batch_tensors() {
    std::vector<Tensor*> tensors;
    for (const auto& part : parts)
        if (part)
            for (Tensor* tensor : part->batch_tensors()) tensors.push_back(tensor);
    return tensors;
}

}  // namespace tf
