// Embedding layer.
#include "layers/embedding.h"

#include <cstring>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

Embedding::Embedding(int64_t vocab_size, int64_t width, std::optional<int64_t> padding_index, const InitScheme& init,
                     Rng& rng, DType dtype)
    : padding_index_(padding_index) {
    if (padding_index && (*padding_index < 0 || *padding_index >= vocab_size))
        throw ValueError("Embedding: padding index " + std::to_string(*padding_index) + " is outside the vocabulary of " +
                         std::to_string(vocab_size));
    Tensor table = init_tensor({vocab_size, width}, width, width, init, rng, dtype);
    if (padding_index) std::memset(static_cast<char*>(table.raw_data()) + *padding_index * width * dtype_size(dtype), 0,
                                   width * dtype_size(dtype));
    weight_ = register_parameter("weight", table);
}

Tensor Embedding::forward(const IndexTensor& ids) const {
    const Tensor rows = embedding(weight_, ids);  // (…, C)
    if (!padding_index_) return rows;
    Shape keep_shape = ids.shape;
    keep_shape.push_back(1);
    std::vector<double> keep(static_cast<std::size_t>(ids.numel()));  // 0 at padding, 1 elsewhere
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = ids.values[i] == *padding_index_ ? 0.0 : 1.0;
    return rows * Tensor::from_data(keep, keep_shape, weight_.dtype());  // (…, C) ⊙ (…, 1)
}

}  // namespace tf
