// Checks of what the math promises about an attention layer as a whole: permutation equivariance
// without positions, causal independence, the sinusoidal table's rotation, the parameter count,
// GQA at H_kv = H being MHA, a covering sliding window being full attention. `tapeformer theorems`
// and the property tests call these same functions.
#pragma once
#include <functional>
#include <vector>

#include "analysis/theorems/measured.h"
#include "layers/attention/multi_head_attention.h"

namespace tf {

// A sequence layer with its context bound: x (B, T, C) → y (B, T, C).
using SequenceMap = std::function<Tensor(const Tensor& x)>;

// f(P·x) = P·f(x) when P reorders the T positions as `order` (out[t] = x[order[t]]):
// docs/math/theory.md §2.
Measured check_permutation_equivariance(const SequenceMap& f, const Tensor& x, const std::vector<int64_t>& order);

// Changing the inputs after position t leaves outputs 0 … t bit for bit, and the gradient of any
// weighting of outputs 0 … t is exactly 0 at the inputs after t (docs/math/theory.md §9).
// Clears the thread's tape.
Measured check_causal_independence(const SequenceMap& f, const Tensor& x, int64_t t);

// PE(p + k) = T_k·PE(p) for a sinusoidal table (max_len, C), T_k one rotation by k·ω_i per
// frequency pair (2i, 2i + 1), the same for every p (Vaswani et al. 2017 §3.5), for k = 1, 3, 10.
Measured check_sinusoidal_rotation(const Tensor& table);

// The layer's parameter count from its definition, 4C² + 4C for plain multi-head attention with
// biases, against `parameter_count` (a layer's Module::parameter_count()).
Measured check_parameter_count(const MultiHeadAttentionOptions& options, int64_t parameter_count);

// grouped(x) = full(x) in `context`, for full = mha_repeating_kv_heads(grouped) (attention_twins.h);
// at H_kv = H the two are one plain multi-head attention with the same weights.
Measured check_gqa_equals_mha(MultiHeadAttention& grouped, MultiHeadAttention& full, const Tensor& x,
                              const SequenceContext& context = {});

// The narrowest sliding window that hides no key of T positions (masks.h): causal, the w most
// recent keys, so w = T; non-causal, |p − j| ≤ w/2 for every pair, so w = 2(T − 1) (at least 1).
int64_t covering_window(int64_t T, bool causal);

// `full` with a sliding window of `window` (same weights) gives full's outputs on x (B, T, C),
// under the causal mask or none.
Measured check_window_equals_full(MultiHeadAttention& full, const Tensor& x, int64_t window, bool causal);

}  // namespace tf
