// SequenceLayer: the common shape of the layers a config can name by type — anything that maps a
// sequence to a sequence, x: (B, T, C_in) → (B, T, C_out): attention variants, RNN/GRU/LSTM layers,
// transformer blocks. The context carries what some of them need (masks, lengths, encoder memory).
#pragma once
#include <vector>

#include "autograd/numerics.h"
#include "layers/forward_observer.h"
#include "layers/module.h"

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
};

}  // namespace tf
