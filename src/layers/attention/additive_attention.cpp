// Additive (Bahdanau) and Luong attention for one decoder step, composed from ops; the additive
// scores also run as one fused op (additive_scores.h) on the fast path.
#include "layers/attention/additive_attention.h"

#include <cmath>
#include <string>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "layers/attention/additive_scores.h"

namespace tf {

namespace {

// query (B, Hq), projected keys (B, S, width), values (B, S, Hv), mask (B, S) or undefined.
void check_step_shapes(const char* op, const Tensor& query, int64_t query_size, const Tensor& keys, int64_t width,
                       const Tensor& values, const Tensor& mask) {
    const bool ok = query.dim() == 2 && query.size(1) == query_size && keys.dim() == 3 &&
                    keys.size(0) == query.size(0) && keys.size(2) == width && values.dim() == 3 &&
                    values.size(0) == keys.size(0) && values.size(1) == keys.size(1) &&
                    (!mask.defined() || mask.shape() == Shape{keys.size(0), keys.size(1)});
    if (!ok)
        throw ShapeError(std::string(op) + ": query " + to_string(query.shape()) + ", keys " + to_string(keys.shape()) +
                         ", values " + to_string(values.shape()) +
                         (mask.defined() ? ", mask " + to_string(mask.shape()) : std::string()) + " do not fit (B, " +
                         std::to_string(query_size) + "), (B, S, " + std::to_string(width) + "), (B, S, Hv), (B, S)");
}

// α = softmax_j(score_j) with score_j = −∞ where the source is padding (so α_j = 0 exactly);
// context = Σ_j α_j v_j, one (1, S)·(S, Hv) product per batch item.
AttentionContext weighted_context(const Tensor& scores, const Tensor& values, const Tensor& key_padding_mask) {
    const int64_t batch = scores.size(0), source = scores.size(1);
    const Tensor masked = key_padding_mask.defined() ? masked_fill(scores, key_padding_mask, -INFINITY) : scores;
    const Tensor weights = softmax(masked);                                              // (B, S)
    const Tensor context = matmul(reshape(weights, {batch, 1, source}), values);        // (B, 1, Hv)
    return {reshape(context, {batch, values.size(2)}), weights};
}

}  // namespace

// ── additive (Bahdanau) ───────────────────────────────────────────────
AdditiveAttention::AdditiveAttention(int64_t query_size, int64_t key_size, int64_t attention_size,
                                     const InitScheme& init, Rng& rng, DType dtype) {
    W_q_ = register_module("W_q", std::make_shared<Linear>(query_size, attention_size, Bias::none, init, rng, dtype));
    W_k_ = register_module("W_k", std::make_shared<Linear>(key_size, attention_size, Bias::learned, init, rng, dtype));
    v_ = register_module("v", std::make_shared<Linear>(attention_size, 1, Bias::none, init, rng, dtype));
}

Tensor AdditiveAttention::precompute_keys(const Tensor& keys) const {
    const int64_t key_size = W_k_->weight().size(1);
    if (keys.dim() != 3 || keys.size(2) != key_size)
        throw ShapeError("AdditiveAttention::precompute_keys: keys " + to_string(keys.shape()) + " must be (B, S, " +
                         std::to_string(key_size) + ")");
    return (*W_k_)(keys);  // (B, S, A)
}

// score(s, h_j) = vᵀ tanh(W_q s + W_k h_j)      (W_k h_j + b_k precomputed)
AttentionContext AdditiveAttention::attend(const Tensor& query, const Tensor& projected_keys, const Tensor& values,
                                           const Tensor& key_padding_mask) const {
    const int64_t attention_size = W_q_->weight().size(0);
    check_step_shapes("AdditiveAttention::attend", query, W_q_->weight().size(1), projected_keys, attention_size,
                      values, key_padding_mask);
    // BEGIN FAST A3.2:
    if (!kernels::use_reference())              // the same scores as one fused op (additive_scores.h)
        return weighted_context(additive_scores(projected_keys, (*W_q_)(query), v_->weight()), values, key_padding_mask);
    // END FAST
    // BEGIN SOLUTION A3.2
    const int64_t batch = query.size(0), source = projected_keys.size(1);
    const Tensor query_proj = (*W_q_)(query);  // (B, A)
    const Tensor energy = tanh(projected_keys + reshape(query_proj, {batch, 1, attention_size}));  // (B, S, A)
    const Tensor scores = reshape((*v_)(energy), {batch, source});                                // (B, S)
    return weighted_context(scores, values, key_padding_mask);
    // END SOLUTION
}

// ── Luong ─────────────────────────────────────────────────────────────
LuongAttention::LuongAttention(Score score, int64_t query_size, int64_t key_size, const InitScheme& init, Rng& rng,
                               DType dtype)
    : score_(score), query_size_(query_size), key_size_(key_size) {
    if (score == Score::dot && query_size != key_size)
        throw ShapeError("LuongAttention: \"dot\" scores need query_size = key_size, got " + std::to_string(query_size) +
                         " and " + std::to_string(key_size));
    if (score == Score::general)
        W_ = register_module("W", std::make_shared<Linear>(key_size, query_size, Bias::none, init, rng, dtype));
}

Tensor LuongAttention::precompute_keys(const Tensor& keys) const {
    if (keys.dim() != 3 || keys.size(2) != key_size_)
        throw ShapeError("LuongAttention::precompute_keys: keys " + to_string(keys.shape()) + " must be (B, S, " +
                         std::to_string(key_size_) + ")");
    return score_ == Score::general ? (*W_)(keys) : keys;  // (B, S, Hq)
}

// dot: score(s, h_j) = sᵀ h_j         general: score(s, h_j) = sᵀ (W h_j)    (W h_j precomputed)
AttentionContext LuongAttention::attend(const Tensor& query, const Tensor& projected_keys, const Tensor& values,
                                        const Tensor& key_padding_mask) const {
    check_step_shapes("LuongAttention::attend", query, query_size_, projected_keys, query_size_, values,
                      key_padding_mask);
    const int64_t batch = query.size(0), source = projected_keys.size(1);
    const Tensor scores = matmul(reshape(query, {batch, 1, query_size_}), projected_keys,
                                 {.transpose_a = false, .transpose_b = true});  // (B, 1, S)
    return weighted_context(reshape(scores, {batch, source}), values, key_padding_mask);
}

}  // namespace tf
