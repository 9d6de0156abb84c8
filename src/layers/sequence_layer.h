// SequenceLayer: the common shape of the layers a config can name by type — anything that maps a
// sequence to a sequence, x: (B, T, C_in) → (B, T, C_out): attention variants, RNN/GRU/LSTM layers,
// transformer blocks. The context carries what some of them need (masks, lengths, encoder memory).
#pragma once
#include <string>
#include <vector>

#include "autograd/error.h"
#include "autograd/numerics.h"
#include "layers/forward_observer.h"
#include "layers/module.h"
#include "layers/step_cache.h"

namespace tf {

// Members carry {} initialisers so designated initialisers ({.causal = true}) compile without
// -Wmissing-field-initializers warnings.
struct SequenceContext {
    // (B, T) with 1 where x holds padding (keys there get no attention), or undefined: no padding.
    Tensor padding_mask{};
    // Valid length of each batch item (RNNs stop there); empty means every item is full length.
    std::vector<int64_t> lengths{};
    bool causal = false;  // position t may only see positions ≤ t
    // Encoder output (B, S, C) for cross-attention, and its padding mask (B, S); undefined otherwise.
    Tensor memory{};
    Tensor memory_padding_mask{};
    SequenceSide side = SequenceSide::target;  // which sequence x's positions are (the memory is the source)
    ForwardObserver* observer = nullptr;       // not owned; what the pass reports or bends (forward_observer.h)
};

class SequenceLayer : public Module {
public:
    virtual Tensor forward(const Tensor& x, const SequenceContext& context) = 0;
    // Runs forward inside this layer's name scope, so --check-numerics can say where a NaN came from.
    Tensor operator()(const Tensor& x, const SequenceContext& context) {
        NameScope scope(name());
        return forward(x, context);
    }

    // Incremental decoding (step_cache.h). How this layer takes part: by default it cannot, and a
    // model built from it re-runs the prefix at every step.
    virtual StepMode step_mode() const { return StepMode::reruns_prefix; }
    // A fresh cache for one decoding (null for a layer that keeps nothing).
    virtual std::unique_ptr<StepCache> make_step_cache() const { return nullptr; }
    // The outputs (B, t, C_out) of t new positions x_new (B, t, C_in) that follow every position
    // the cache has seen; the context as in forward (causal, memory). A position-wise layer's step
    // is its forward on the new positions; others override this.
    virtual Tensor forward_step(const Tensor& x_new, const SequenceContext& context, StepCache* cache);
    Tensor step(const Tensor& x_new, const SequenceContext& context, StepCache* cache) {
        NameScope scope(name());
        return forward_step(x_new, context, cache);
    }
};

// The cache a layer made, as its own type; throws if another layer made it.
template <class Cache>
Cache& step_cache_of(StepCache* cache, const std::string& layer) {
    auto* own = dynamic_cast<Cache*>(cache);
    if (!own) throw ValueError(layer + ": forward_step was given a cache this layer did not make");
    return *own;
}

}  // namespace tf
