// The tensor-level checks of `tapeformer theorems`: each measures one statement on given tensors
// and says, with its numbers, whether it held.
#include "analysis/theorems/attention_theorems.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/scaled_dot_product.h"

namespace tf {

namespace {

constexpr uint64_t kSeedGradientSeed = 5;  // the fixed random dO of the gradient comparisons

struct OutputAndGradients {
    Tensor O;
    std::vector<Tensor> grads;  // dQ, dK, dV
};

// O = attention(Q, K, V) on fresh leaves, then backward from the seed gradient dO.
OutputAndGradients output_and_gradients(const AttentionFn& attention, const Tensor& Q, const Tensor& K,
                                         const Tensor& V, const Tensor& dO) {
    std::vector<Tensor> leaves;
    for (const Tensor& x : {Q, K, V}) leaves.push_back(x.clone().set_requires_grad());
    Tape::current().clear();
    OutputAndGradients result{attention(leaves[0], leaves[1], leaves[2]), {}};
    Tape::current().backward(result.O, dO);
    for (const Tensor& leaf : leaves) result.grads.push_back(leaf.grad());
    return result;
}

// dO (B, H, T, Dv) for Q (B, H, T, D) and V (B, H, S, Dv), uniform in [−1, 1).
Tensor seed_gradient(const Tensor& Q, const Tensor& V) {
    if (Q.dim() != 4 || V.dim() != 4)
        throw ShapeError("attention check: expected Q and V of rank 4, got " + to_string(Q.shape()) + " and " +
                         to_string(V.shape()));
    Rng rng(kSeedGradientSeed);
    return Tensor::uniform({Q.size(0), Q.size(1), Q.size(2), V.size(3)}, -1, 1, rng, Q.dtype());
}

struct NamedPair {
    std::string name;  // "dQ"
    Tensor measured, expected;
};

// Holds when every pair agrees to the tolerance; the numbers name each difference.
Measured compare_pairs(const std::vector<NamedPair>& pairs, double tolerance) {
    bool holds = true;
    std::string text;
    for (const NamedPair& pair : pairs) {
        const double difference = max_relative_difference(pair.measured, pair.expected);
        holds = holds && difference <= tolerance;
        text += (text.empty() ? "" : ", ") + pair.name + " " + short_number(difference);
    }
    return {holds, "max relative difference " + text + " (tolerance " + short_number(tolerance) + ")"};
}

}  // namespace

Measured check_rows_sum_to_one(const Tensor& weights) {
    if (weights.dim() < 2) throw ShapeError("check_rows_sum_to_one: expected weights (…, T, S), got " + to_string(weights.shape()));
    const int64_t S = weights.size(-1), rows = weights.numel() / S;
    const std::vector<double> a = weights.to_vector();
    double worst_sum_error = 0, smallest = INFINITY;
    for (int64_t row = 0; row < rows; ++row) {
        double total = 0;
        for (int64_t j = 0; j < S; ++j) total += a[row * S + j], smallest = std::min(smallest, a[row * S + j]);
        worst_sum_error = worse_of(worst_sum_error, std::abs(total - 1));   // a NaN weight makes the sum NaN
    }
    return {smallest >= 0 && worst_sum_error <= rounding_tolerance(weights),
            "max |Σ_j α_ij − 1| = " + short_number(worst_sum_error) + " over " + std::to_string(rows) + " rows, min α_ij = " +
                short_number(smallest)};
}

Measured check_outputs_in_value_hull(const Tensor& V, const Tensor& O, const Tensor& hidden) {
    if (V.dim() != 4 || O.dim() != 4 || V.size(0) != O.size(0) || V.size(1) != O.size(1) || V.size(3) != O.size(3) ||
        (hidden.defined() && hidden.shape() != Shape{O.size(2), V.size(2)}))
        throw ShapeError("check_outputs_in_value_hull: expected V (B, H, S, Dv), O (B, H, T, Dv) and hidden (T, S), got " +
                         to_string(V.shape()) + ", " + to_string(O.shape()) +
                         (hidden.defined() ? " and " + to_string(hidden.shape()) : std::string()));
    const int64_t BH = V.size(0) * V.size(1), S = V.size(2), T = O.size(2), Dv = V.size(3);
    const std::vector<double> v = V.to_vector(), o = O.to_vector();
    const std::vector<double> mask = hidden.defined() ? hidden.to_vector() : std::vector<double>(T * S, 0.0);
    double largest_value = 0, worst_excess = -INFINITY;  // excess = how far outside [min, max]; < 0 inside
    int64_t coordinates = 0, outside = 0;
    for (double value : v) largest_value = std::max(largest_value, std::abs(value));
    const double tolerance = rounding_tolerance(V) * (1 + largest_value);
    for (int64_t bh = 0; bh < BH; ++bh)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t d = 0; d < Dv; ++d) {
                double low = INFINITY, high = -INFINITY;
                for (int64_t j = 0; j < S; ++j) {
                    const double value = v[(bh * S + j) * Dv + d];
                    if (mask[i * S + j] == 0) low = std::min(low, value), high = std::max(high, value);
                }
                if (low > high) continue;  // a query that sees no key has no hull (it outputs 0)
                const double out = o[(bh * T + i) * Dv + d], excess = std::max(out - high, low - out);
                worst_excess = worse_of(worst_excess, excess);
                outside += !(excess <= tolerance);   // a NaN output is outside every hull
                ++coordinates;
            }
    const std::string range = " output coordinates inside [min_j v_jd, max_j v_jd] over the keys each query sees";
    if (outside == 0)
        return {true, "all " + std::to_string(coordinates) + range + " (tolerance " + short_number(tolerance) + ")"};
    return {false, std::to_string(coordinates - outside) + " of " + std::to_string(coordinates) + range + "; the worst " +
                       short_number(worst_excess) + " outside"};
}

Measured check_temperature_limits(const WeightsAtTemperature& weights_at) {
    const std::vector<double> taus = {1e-8, 1e-4, 1e-2, 1, 1e2, 1e4, 1e8};
    std::vector<double> to_one_hot, to_uniform;  // per τ, means over rows
    for (const double tau : taus) {
        const Tensor A = weights_at(tau);  // (…, T, S)
        const int64_t S = A.size(-1), rows = A.numel() / S;
        const std::vector<double> a = A.to_vector();
        double one_hot = 0, uniform = 0;
        for (int64_t row = 0; row < rows; ++row) {
            // 1 − max_j α_ij: 0 exactly at the one-hot argmax.
            // KL(α_i ‖ 1/S) = Σ_j α_ij ln(S·α_ij): 0 exactly at the uniform row (0·ln 0 = 0).
            double largest = 0;
            for (int64_t j = 0; j < S; ++j) {
                const double alpha = a[row * S + j];
                largest = std::max(largest, alpha);
                if (alpha > 0) uniform += alpha * std::log(static_cast<double>(S) * alpha);
            }
            one_hot += 1 - largest;
        }
        to_one_hot.push_back(one_hot / static_cast<double>(rows));
        to_uniform.push_back(uniform / static_cast<double>(rows));
    }
    // Both distances are monotone in τ (α_max falls and the entropy rises as τ grows), up to rounding.
    constexpr double kRounding = 1e-12, kLimit = 1e-6;
    bool monotone = true;
    for (std::size_t i = 0; i + 1 < taus.size(); ++i)
        monotone = monotone && to_one_hot[i] <= to_one_hot[i + 1] + kRounding && to_uniform[i] + kRounding >= to_uniform[i + 1];
    const bool holds = monotone && to_one_hot.front() < kLimit && to_uniform.back() < kLimit;
    std::string powers;  // "1e-8, 1e-4, …"
    for (const double tau : taus) powers += (powers.empty() ? "1e" : ", 1e") + std::to_string(std::lround(std::log10(tau)));
    return {holds, "τ = " + powers + ": mean (1 − max_j α_ij) = " + short_numbers(to_one_hot) + "; mean KL(α_i ‖ uniform) = " +
                       short_numbers(to_uniform) + (monotone ? "" : " (not monotone)")};
}

Measured check_dot_product_variance(const Tensor& q, const Tensor& k) {
    if (q.dim() != 2 || q.shape() != k.shape())
        throw ShapeError("check_dot_product_variance: expected q and k (N, d_k), got " + to_string(q.shape()) + " and " +
                         to_string(k.shape()));
    const int64_t N = q.size(0), d_k = q.size(1);
    NoGradGuard no_grad;
    const std::vector<double> dots = sum(q * k, {-1}).to_vector();  // (N)
    // For Gaussian entries E(q·k)⁴ = 3d_k² + 6d_k, so the sample variance has relative standard error
    // √((2 + 6/d_k)/N), and the sample mean standard error √(Var/N). We allow 6 of each.
    const double relative_error = std::sqrt((2 + 6.0 / static_cast<double>(d_k)) / static_cast<double>(N));
    bool holds = true;
    std::string text = "N = " + std::to_string(N) + " pairs, d_k = " + std::to_string(d_k) + ":";
    for (const double scale : {1.0, 1 / std::sqrt(static_cast<double>(d_k))}) {
        double mean = 0, squares = 0;
        for (const double dot : dots) mean += dot * scale / static_cast<double>(N);
        for (const double dot : dots) squares += (dot * scale - mean) * (dot * scale - mean);
        const double variance = squares / static_cast<double>(N - 1), expected = static_cast<double>(d_k) * scale * scale;
        const double variance_tolerance = 6 * relative_error * expected;
        const double mean_tolerance = 6 * std::sqrt(expected / static_cast<double>(N));
        holds = holds && std::abs(variance - expected) <= variance_tolerance && std::abs(mean) <= mean_tolerance;
        text += std::string(scale == 1.0 ? " Var(q·k) = " : "; Var(q·k/√d_k) = ") + short_number(variance, 3) + " (" +
                short_number(expected) + " ± " + short_number(variance_tolerance) + "), mean " + short_number(mean) + " (0 ± " +
                short_number(mean_tolerance) + ")";
    }
    return {holds, text + "; ± = 6 standard errors"};
}

Measured check_tiled_matches_composed(const AttentionFn& tiled, const AttentionFn& composed, const Tensor& Q,
                                      const Tensor& K, const Tensor& V) {
    const Tensor dO = seed_gradient(Q, V);
    const OutputAndGradients a = output_and_gradients(tiled, Q, K, V, dO), b = output_and_gradients(composed, Q, K, V, dO);
    return compare_pairs(
        {{"O", a.O, b.O}, {"dQ", a.grads[0], b.grads[0]}, {"dK", a.grads[1], b.grads[1]}, {"dV", a.grads[2], b.grads[2]}},
        rounding_tolerance(Q));
}

Measured check_analytic_backward(const AttentionFn& attention, const Tensor& Q, const Tensor& K, const Tensor& V,
                                 double tau) {
    const Tensor dO = seed_gradient(Q, V);  // (B, H, T, Dv)
    const OutputAndGradients tape = output_and_gradients(attention, Q, K, V, dO);
    NoGradGuard no_grad;
    const Tensor A = attention_weights(Q, K, {}, tau);                    // (B, H, T, S), the forward's weights
    const Tensor dV = matmul(A, dO, {.transpose_a = true});               // Aᵀ·dO
    const Tensor dA = matmul(dO, V, {.transpose_b = true});               // dO·Vᵀ
    const Tensor dS = A * (dA - sum(A * dA, {-1}, /*keepdim=*/true));     // A ⊙ (dA − rowsum(A ⊙ dA))
    const Tensor dQ = matmul(dS, K) / tau;                                // dS·K/τ
    const Tensor dK = matmul(dS, Q, {.transpose_a = true}) / tau;         // dSᵀ·Q/τ
    return compare_pairs({{"dQ", tape.grads[0], dQ}, {"dK", tape.grads[1], dK}, {"dV", tape.grads[2], dV}}, rounding_tolerance(Q));
}

}  // namespace tf
