// The default decoding step of a sequence layer.
#include "layers/sequence_layer.h"

namespace tf {

Tensor SequenceLayer::forward_step(const Tensor& x_new, const SequenceContext& context, StepCache*) {
    if (step_mode() == StepMode::position_wise) return forward(x_new, context);
    throw ValueError(name() + ": this layer cannot decode incrementally (its step_mode is not position_wise or cached)");
}

}  // namespace tf
