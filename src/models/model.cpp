// Helpers shared by every SequenceModel.
#include "models/model.h"

#include "autograd/ops.h"

namespace tf {

void reorder_decode_state(DecodeState& state, const std::vector<int64_t>& rows) {
    if (state.model_state)
        for (Tensor* tensor : state.model_state->batch_tensors()) *tensor = index_select(*tensor, 0, IndexTensor(rows));
    std::vector<int64_t> lengths;
    for (int64_t row : rows) lengths.push_back(state.src_lengths.empty() ? 0 : state.src_lengths[row]);
    if (!state.src_lengths.empty()) state.src_lengths = lengths;
}

}  // namespace tf
