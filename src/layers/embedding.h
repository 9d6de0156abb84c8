// Embedding: a table of V learned vectors of width C; token id i reads row i.
//   ids: (…)  →  (…, C)
// With a padding index, that row starts at zero and stays there: its output is masked to 0, so it
// also gets no gradient.
#pragma once
#include <optional>

#include "layers/init.h"
#include "layers/module.h"

namespace tf {

class Embedding : public Module {
public:
    Embedding(int64_t vocab_size, int64_t width, std::optional<int64_t> padding_index, const InitScheme& init, Rng& rng,
              DType dtype = DType::f32);
    Tensor forward(const IndexTensor& ids) const;
    Tensor operator()(const IndexTensor& ids) const { return forward(ids); }
    const Tensor& weight() const { return weight_; }

private:
    Tensor weight_;
    std::optional<int64_t> padding_index_;
};

}  // namespace tf
