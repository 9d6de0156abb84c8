// Helpers shared by every SequenceModel.
#include "models/model.h"

#include "autograd/ops.h"

namespace tf {

void reorder_decode_state(DecodeState& state, const std::vector<int64_t>& rows) {
    if (state.model_state)
        for (Tensor* tensor : state.model_state->batch_tensors())
            if (tensor->defined()) *tensor = index_select(*tensor, 0, IndexTensor(rows));  // undefined: not made yet
    std::vector<int64_t> lengths;
    for (int64_t row : rows) lengths.push_back(state.src_lengths.empty() ? 0 : state.src_lengths[row]);
    if (!state.src_lengths.empty()) state.src_lengths = lengths;
}

IndexTensor token_columns(const IndexTensor& ids, int64_t from, int64_t to) {
    const int64_t B = ids.shape[0], T = ids.shape[1];
    if (from < 0 || to > T || from >= to)
        throw ValueError("decode_step: expected a prefix longer than the " + std::to_string(from) +
                         " tokens already decoded, got " + std::to_string(T));
    std::vector<int64_t> columns;
    for (int64_t b = 0; b < B; ++b)
        columns.insert(columns.end(), ids.values.begin() + b * T + from, ids.values.begin() + b * T + to);
    return IndexTensor(columns, {B, to - from});
}

}  // namespace tf
