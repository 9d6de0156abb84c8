// Checks of what the math promises about scaled dot-product attention itself, on tensors: weights on
// the simplex, outputs in the values' hull, the temperature's limits, the √d_k variance, tiled =
// composed, the analytic backward = the tape's. `tapeformer theorems` and the property tests call
// these same functions (docs/math/theory.md, docs/math/attention.md).
#pragma once
#include <functional>
#include <string>

#include "analysis/theorems/measured.h"
#include "autograd/tensor.h"

namespace tf {

// Attention as a function of Q (B, H, T, D), K (B, H, S, D), V (B, H, S, Dv) → O (B, H, T, Dv).
using AttentionFn = std::function<Tensor(const Tensor& Q, const Tensor& K, const Tensor& V)>;

// α_ij ≥ 0 and Σ_j α_ij = 1 in every row of weights (…, T, S) (docs/math/theory.md §1).
Measured check_rows_sum_to_one(const Tensor& weights);

// Each coordinate of O_i lies in [min_j V_jd, max_j V_jd] over the keys j query i sees: O = A·V is a
// convex combination (theory.md §1). V (B, H, S, Dv), O (B, H, T, Dv); hidden (T, S), 1 = key hidden
// from the query, or undefined for none.
Measured check_outputs_in_value_hull(const Tensor& V, const Tensor& O, const Tensor& hidden = {});

// Weights at temperature τ, (…, T, S), from fixed scores: softmax(s/τ) with or without a mask.
using WeightsAtTemperature = std::function<Tensor(double tau)>;

// As τ → 0 the rows tend to the one-hot argmax, as τ → ∞ to uniform (theory.md §3), measured at
// τ = 10⁻⁸ … 10⁸ and required to approach both limits monotonically.
Measured check_temperature_limits(const WeightsAtTemperature& weights_at);

// For q, k (N, d_k) with independent unit-variance entries: Var(q·k) = d_k and Var(q·k/√d_k) = 1,
// means 0, each within 6 standard errors of its sample estimate (Vaswani et al. 2017 §3.2.1, fn. 4).
Measured check_dot_product_variance(const Tensor& q, const Tensor& k);

// `tiled` and `composed` give the same O and the same dQ, dK, dV for a fixed random seed gradient
// dO (docs/math/fast_attention.md §1–2). Clears the thread's tape: call it between training steps.
Measured check_tiled_matches_composed(const AttentionFn& tiled, const AttentionFn& composed, const Tensor& Q,
                                      const Tensor& K, const Tensor& V);

// The tape's dQ, dK, dV of `attention` equal the analytic backward of O = softmax(Q·Kᵀ/τ)·V
// (docs/math/attention.md): dV = Aᵀ·dO, dA = dO·Vᵀ, dS = A ⊙ (dA − rowsum(A ⊙ dA)), dQ = dS·K/τ,
// dK = dSᵀ·Q/τ. Clears the thread's tape.
Measured check_analytic_backward(const AttentionFn& attention, const Tensor& Q, const Tensor& K, const Tensor& V,
                                 double tau);

}  // namespace tf
