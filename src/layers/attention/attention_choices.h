// The choices a multi-head attention config makes, as types: which kernel computes the heads and
// which keys each query may see. Each enum's config names are its table below (config/enum_names.h).
#pragma once
#include <span>

#include "config/enum_names.h"

namespace tf {

// How the heads turn Q, K, V into outputs (docs/math/fast_attention.md §5). `softmax` is one
// function with two forms: composed from ops (matmul, mask, softmax, matmul: what a student reads,
// and what runs under "kernels": "reference", or whenever the weights are needed: an observer, or
// dropout on them); otherwise the tiled kernel replaces it, reading the heads in place. Both
// compute the same outputs and gradients (tests/test_fast_attention_layers.cpp).
enum class AttentionKernel {
    softmax,  // softmax(Q·Kᵀ/τ + M)·V: composed from ops (reference), else by the tiled kernel in place
    tiled,    // the same softmax attention by online-softmax tiles (tiled_attention.h): memory linear in T
    linear,   // φ(q)·φ(k) feature-map attention (linear_attention.h): O(T·D²), no softmax and so no τ
};
inline constexpr EnumName<AttentionKernel> kAttentionKernelNames[] = {
    {AttentionKernel::softmax, "softmax"}, {AttentionKernel::tiled, "tiled"}, {AttentionKernel::linear, "linear"}};
inline std::span<const EnumName<AttentionKernel>> enum_names(AttentionKernel) { return kAttentionKernelNames; }

// Which keys a query may see besides the causal and padding masks (masks.h):
enum class AttentionPattern {
    full,            // every key
    sliding_window,  // the `window` nearest keys
    strided,         // a local window, every `stride`-th key and `global_tokens` global positions
};
inline constexpr EnumName<AttentionPattern> kAttentionPatternNames[] = {{AttentionPattern::full, "full"},
                                                                        {AttentionPattern::sliding_window, "sliding_window"},
                                                                        {AttentionPattern::strided, "strided"}};
inline std::span<const EnumName<AttentionPattern>> enum_names(AttentionPattern) { return kAttentionPatternNames; }

}  // namespace tf
