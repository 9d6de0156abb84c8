// What an attention head does, in numbers: how spread out its weights are (entropy), how far it
// looks (mean distance), and whether q·k really has the scale √d_k assumes (Vaswani et al. 2017 §3.2.1).
#pragma once
#include <vector>

#include "autograd/tensor.h"

namespace tf {

struct HeadStats {
    double entropy = 0;        // mean over queries of −Σ_j a_ij ln a_ij (nats); ln S for uniform rows
    // The same mean for a head spread evenly over the keys each query sees (those with a_ij > 0):
    // ln S unmasked, (1/T)·Σ_i ln(i + 1) causal — what `entropy` is to be read against.
    double uniform_entropy = 0;
    double mean_distance = 0;  // mean over queries of Σ_j a_ij |i − j|
};

// One entry per head of weights (B, H, T, S), averaged over batch and queries (rows that are all
// zero — fully masked queries — are skipped).
std::vector<HeadStats> head_stats(const Tensor& weights);

struct DotProductScale {
    double variance_raw = 0;     // Var(q·k) over every (query, key) pair of every head
    double variance_scaled = 0;  // Var(q·k / √d_k)
    double component_variance_q = 0, component_variance_k = 0;  // mean Var of q_d and k_d
    int64_t d_k = 0;
};

// From queries (B, H, T, D) and keys (B, H_kv, S, D) (grouped heads share keys).
DotProductScale dot_product_scale(const Tensor& queries, const Tensor& keys);

}  // namespace tf
