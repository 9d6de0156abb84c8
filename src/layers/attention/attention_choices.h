// The choices a multi-head attention config makes, as types: which kernel computes the heads and
// which keys each query may see. Read from their config names once (attention_choice_from_name);
// the names are what configs and messages say.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace tf {

// How the heads turn Q, K, V into outputs (docs/math/fast_attention.md):
enum class AttentionKernel {
    softmax,  // softmax(Q·Kᵀ/τ + M)·V composed from ops: the readable reference; weights materialised
    tiled,    // the same softmax attention by online-softmax tiles (tiled_attention.h): memory linear in T
    linear,   // φ(q)·φ(k) feature-map attention (linear_attention.h): O(T·D²), no softmax and so no τ
};

// Which keys a query may see besides the causal and padding masks (masks.h):
enum class AttentionPattern {
    full,            // every key
    sliding_window,  // the `window` nearest keys
    strided,         // a local window, every `stride`-th key and `global_tokens` global positions
};

std::string name_of(AttentionKernel kernel);
std::string name_of(AttentionPattern pattern);

// Every config name of the choice, in declaration order ({"softmax", "tiled", "linear"}, …).
template <class Choice>
std::vector<std::string> attention_choice_names();

// The choice a config name stands for; none for a name that is not one.
template <class Choice>
std::optional<Choice> attention_choice_from_name(const std::string& name);

}  // namespace tf
