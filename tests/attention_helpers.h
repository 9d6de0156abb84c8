// Helpers shared by the attention and transformer-block tests: seeded random tensors, small
// modules in f64, padding masks, and copying one module's weights into another.
#pragma once
#include <memory>
#include <vector>

#include "analysis/theorems/attention_twins.h"
#include "autograd/tensor.h"
#include "layers/attention/multi_head_attention.h"

namespace tf::test {

inline Tensor random_tensor(const Shape& shape, Rng& rng, DType dtype = DType::f64) {
    return Tensor::normal(shape, 0.0, 1.0, rng, dtype);
}

// A (B, S) padding mask with the last `padded[b]` positions of item b marked 1.
inline Tensor padding_mask(int64_t S, const std::vector<int64_t>& padded) {
    const int64_t B = static_cast<int64_t>(padded.size());
    Tensor mask = Tensor::zeros({B, S});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t s = S - padded[b]; s < S; ++s) mask.set({b, s}, 1.0);
    return mask;
}

inline std::shared_ptr<MultiHeadAttention> make_attention(MultiHeadAttentionOptions options, uint64_t seed = 7,
                                                          DType dtype = DType::f64) {
    Rng rng(seed);
    return std::make_shared<MultiHeadAttention>(options, std::make_shared<Rng>(seed + 1), InitScheme{}, rng, dtype);
}

// Biases are zero at initialisation; give them values so a gradcheck exercises them.
inline void randomize_parameters(Module& module, uint64_t seed) {
    Rng rng(seed);
    randomize_weights(module, 0.5, rng);
}

}  // namespace tf::test
