// Positional encodings: what tells attention, permutation-equivariant without them
// (docs/math/theory.md §2), where each token sits. Both add a (T, C) table slice to x (B, T, C),
// starting at `offset` (the position of x's first step, so a decoder fed one token at a time adds
// the right row).
#pragma once
#include "layers/init.h"
#include "layers/module.h"

namespace tf {

// Vaswani et al. 2017 §3.5, a fixed table with no parameters:
//   PE(pos, 2i) = sin(pos · ω_i),  PE(pos, 2i+1) = cos(pos · ω_i),  ω_i = 1 / 10000^{2i/C}
// sqrt_width scales the input first, x·√C + PE, as the Transformer does to token embeddings
// (bench/torch_peer.py, TransformerAE.embed); the caller chooses.
class SinusoidalPositionalEncoding : public Module {
public:
    enum class InputScale { none, sqrt_width };
    SinusoidalPositionalEncoding(int64_t max_len, int64_t width, InputScale scale = InputScale::none,
                                 DType dtype = DType::f32);
    // x (B, T, C) → x·scale + PE[offset : offset + T]
    Tensor forward(const Tensor& x, int64_t offset = 0) const;
    Tensor operator()(const Tensor& x, int64_t offset = 0) const { return forward(x, offset); }
    const Tensor& table() const { return table_; }  // (max_len, C)
    static double frequency(int64_t i, int64_t width);  // ω_i = 10000^{−2i/C}

private:
    Tensor table_;
    InputScale scale_;
};

// One learned row per position: weight (max_len, C), x (B, T, C) → x + weight[offset : offset + T].
class LearnedPositionalEncoding : public Module {
public:
    LearnedPositionalEncoding(int64_t max_len, int64_t width, const InitScheme& init, Rng& rng,
                              DType dtype = DType::f32);
    Tensor forward(const Tensor& x, int64_t offset = 0) const;
    Tensor operator()(const Tensor& x, int64_t offset = 0) const { return forward(x, offset); }
    const Tensor& weight() const { return weight_; }

private:
    Tensor weight_;
};

}  // namespace tf
