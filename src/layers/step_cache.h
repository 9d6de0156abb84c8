// Incremental decoding (the key/value cache). At decoding step t a decoder needs the output of the
// new position only: a position-wise sublayer (feed-forward, layer norm) computes it from that
// position's input alone, and attention computes it from the new query and the keys and values of
// every earlier position, which it keeps instead of recomputing — so a step costs O(t), not a rerun
// of the whole prefix. Each SequenceLayer states how it takes part through one capability, its
// StepMode; a model whose blocks cannot all decode incrementally re-runs the prefix instead, which
// is slower but never a wrong answer.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

enum class StepMode {
    reruns_prefix,  // cannot decode incrementally (the default: a registry layer that says nothing)
    position_wise,  // the output at a position depends on that position's input only: forward on
                    // the new positions is the step, and nothing is kept
    cached,         // keeps a StepCache between steps (attention: its keys and values)
};

// What one layer keeps between decoding steps. Every tensor has the batch (or beam) as its first
// axis and batch_tensors lists them, so beam search can reorder hypotheses whatever the layer.
struct StepCache {
    virtual ~StepCache() = default;
    virtual std::vector<Tensor*> batch_tensors() = 0;
};

// The bytes a cache holds (what `bench` reports as the cache's size).
int64_t cache_bytes(StepCache& cache);

// The combined mode of layers run one after another: the weakest of them.
StepMode weakest_step_mode(const std::vector<StepMode>& modes);

// The caches of sublayers (a block's attention, cross-attention, feed-forward), in one: null
// entries are sublayers that keep nothing.
struct StepCaches : StepCache {
    std::vector<std::unique_ptr<StepCache>> parts;
    std::vector<Tensor*> batch_tensors() override;
};

}  // namespace tf
