// Scaled dot-product attention as a composition of ops: scale, matmul, masked_fill, softmax, matmul.
#include "layers/attention/scaled_dot_product.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";

[[noreturn]] void shape_error(const Tensor& Q, const Tensor& K, const Tensor& V, const std::string& what) {
    throw ShapeError(std::string(kOp) + ": Q " + to_string(Q.shape()) + ", K " + to_string(K.shape()) +
                     (V.defined() ? ", V " + to_string(V.shape()) : std::string()) + ": " + what);
}

// The head axis (−3) exists only for rank ≥ 3; without it there is one head and no grouping.
int64_t heads_of(const Tensor& x) { return x.dim() >= 3 ? x.size(-3) : 1; }

// Query heads per key/value head, G = H / H_kv, after checking that the shapes fit together.
int64_t group_size(const Tensor& Q, const Tensor& K, const Tensor& V) {
    if (Q.dim() < 2 || K.dim() != Q.dim() || (V.defined() && V.dim() != Q.dim()))
        shape_error(Q, K, V, "expected Q, K, V of the same rank ≥ 2");
    if (K.size(-1) != Q.size(-1))
        shape_error(Q, K, V, "query width " + std::to_string(Q.size(-1)) + " and key width " +
                                 std::to_string(K.size(-1)) + " differ");
    if (V.defined() && (V.size(-2) != K.size(-2) || heads_of(V) != heads_of(K)))
        shape_error(Q, K, V, "V must have K's heads and key count " + std::to_string(K.size(-2)));
    if (heads_of(Q) % heads_of(K) != 0)
        shape_error(Q, K, V, std::to_string(heads_of(Q)) + " query heads are not a multiple of " +
                                 std::to_string(heads_of(K)) + " key/value heads");
    return heads_of(Q) / heads_of(K);
}

// (…, H, T, X) → (…, H_kv, G·T, X): the G query heads sharing one K/V head stacked as rows (a view).
// Heads g·G … g·G + G − 1 land in group g: those kv_head_of (grouped_heads.h) maps to g.
Tensor stack_groups(const Tensor& x, int64_t group) {
    if (group == 1) return x;
    Shape shape = x.shape();
    const std::size_t r = shape.size();
    shape[r - 3] /= group;
    shape[r - 2] *= group;
    return reshape(x, shape);
}

// The inverse of stack_groups: (…, H_kv, G·T, X) → (…, H, T, X).
Tensor unstack_groups(const Tensor& x, int64_t group) {
    if (group == 1) return x;
    Shape shape = x.shape();
    const std::size_t r = shape.size();
    shape[r - 3] *= group;
    shape[r - 2] /= group;
    return reshape(x, shape);
}

double temperature_for(const Tensor& Q, std::optional<double> temperature) {
    const double tau = temperature.value_or(std::sqrt(static_cast<double>(Q.size(-1))));  // Vaswani et al. 2017 §3.2.1
    if (!(tau > 0.0 && std::isfinite(tau)))
        throw ValueError(std::string(kOp) + ": temperature must be positive and finite, got " + std::to_string(tau));
    return tau;
}

}  // namespace

// A = softmax(mask(Q·Kᵀ / τ)). Dividing Q (T·D numbers) rather than the scores (T·S) by τ is the
// same product, cheaper when S > D.
Tensor attention_weights(const Tensor& Q, const Tensor& K, const AttentionMask& mask,
                         std::optional<double> temperature) {
    // BEGIN SOLUTION A2.1
    const int64_t group = group_size(Q, K, Tensor());
    const double tau = temperature_for(Q, temperature);
    const Tensor stacked = matmul(stack_groups(Q * (1.0 / tau), group), K, {.transpose_b = true});  // (…, H_kv, G·T, S)
    const Tensor scores = unstack_groups(stacked, group);  // (…, H, T, S)
    const Tensor hidden = combined_mask(mask, scores.shape());
    if (!hidden.defined()) return softmax(scores);
    return softmax(masked_fill(scores, hidden, -std::numeric_limits<double>::infinity()));
    // END SOLUTION
}

// O = A·V, each query head reading its group's V.
Tensor attend(const Tensor& weights, const Tensor& V) {
    if (weights.dim() != V.dim() || weights.dim() < 2 || weights.size(-1) != V.size(-2) ||
        heads_of(weights) % heads_of(V) != 0)
        throw ShapeError("attend: weights " + to_string(weights.shape()) + " and V " + to_string(V.shape()) +
                         " do not fit (expected (…, H, T, S) and (…, H_kv, S, Dv), H a multiple of H_kv)");
    const int64_t group = heads_of(weights) / heads_of(V);
    return unstack_groups(matmul(stack_groups(weights, group), V), group);  // (…, H, T, Dv)
}

Tensor scaled_dot_product_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask,
                                    std::optional<double> temperature, Tensor* weights_out) {
    group_size(Q, K, V);
    const Tensor weights = attention_weights(Q, K, mask, temperature);  // (…, H, T, S)
    if (weights_out) *weights_out = weights;
    return attend(weights, V);
}

}  // namespace tf
