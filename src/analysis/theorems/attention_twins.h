// Attention layers that share another's weights, for the theorem checks: an f64 twin with the
// softmax kernel (so one tolerance fits every check, whatever kernel the original ran), the plain
// multi-head layer equal to a grouped-query one, the heads' Q, K, V from a layer's own projections,
// random weights, and the first attention layer of a trained model.
#pragma once
#include <memory>

#include "layers/attention/multi_head_attention.h"

namespace tf {

// A new f64 layer with `options` holding `source`'s weights (the options must give the same
// parameter shapes: d_model, heads, kv_heads and bias as source's), in eval mode.
std::shared_ptr<MultiHeadAttention> attention_with_weights(const MultiHeadAttention& source,
                                                           const MultiHeadAttentionOptions& options);

// source's projections and temperature as plain softmax attention: no pattern, rotary positions or
// dropout, the softmax kernel. What the statements about "attention with these weights" are checked on.
std::shared_ptr<MultiHeadAttention> softmax_twin(const MultiHeadAttention& source);

// The plain multi-head layer (H_kv = H, f64) computing what the grouped layer computes: query head h's
// key/value projection rows are the grouped layer's rows of head ⌊h·H_kv/H⌋ (Ainslie et al. 2023).
std::shared_ptr<MultiHeadAttention> mha_repeating_kv_heads(const MultiHeadAttention& grouped);

// Every parameter of `module` drawn from N(0, std²), biases included (at initialisation they are 0,
// and a check should exercise them).
void randomize_weights(Module& module, double std, Rng& rng);

struct HeadProjections {
    Tensor Q, K, V;  // (B, H, T, D) each: K and V repeated per query head when H_kv < H
    double tau = 1;  // the layer's temperature: configured, else √D
};

// Q, K, V of self-attention over x (B, T, C) through the layer's own q/k/v projections (no rotary).
HeadProjections project_heads(const MultiHeadAttention& layer, const Tensor& x);

// The first multi-head attention in `model`, depth-first in registration order; null when it has none.
const MultiHeadAttention* first_attention(const Module& model);

}  // namespace tf
