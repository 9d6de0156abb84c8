// The claim "M = W_Q·W_Kᵀ is positive semi-definite" (attention as a learned Mahalanobis metric),
// taken apart on real weights. Biases aside, head h scores q_i·k_j = x_iᵀ·M_h·x_j with
// M_h = W_Q,h·W_K,hᵀ (C×C) in the paper's x·W convention (= W_q,hᵀ·W_k,h for our (out, in) weights).
// Since xᵀ·M·x = xᵀ·½(M + Mᵀ)·x, M is PSD exactly when the symmetric part's smallest eigenvalue is
// ≥ 0. Nothing ties W_Q to W_K, so it is negative for almost every pair: the claim is false in
// general, true when W_Q = W_K (docs/math/theory.md §11).
#pragma once
#include <vector>

#include "analysis/theorems/measured.h"
#include "layers/attention/multi_head_attention.h"

namespace tf {

struct QueryKeyForm {
    int64_t head = 0;                // the head whose ½(M_h + M_hᵀ) has the smallest eigenvalue
    double smallest_eigenvalue = 0;  // λ_min(½(M_h + M_hᵀ))
    double largest_magnitude = 0;    // max |λ| over every head: the scale λ_min is read against
    std::vector<double> x;           // the unit eigenvector of λ_min
    double quadratic_form = 0;       // xᵀ·M_h·x from M_h itself (not its symmetric part): = λ_min
};

// Over every head of the layer (head h reads key head ⌊h·H_kv/H⌋).
QueryKeyForm most_negative_query_key_form(const MultiHeadAttention& layer);

// Holds when every head's M_h is PSD (λ_min ≥ −10⁻¹⁰·max |λ|, i.e. ≥ 0 up to rounding); otherwise the
// numbers give the counterexample x with xᵀ·M·x < 0.
Measured check_query_key_psd(const MultiHeadAttention& layer);

}  // namespace tf
