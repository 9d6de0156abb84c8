// Attention mask builders: each one a predicate over (query i, key j) written once, filled into a
// (T, S) table by build_mask.
#include "layers/attention/masks.h"

#include <cstdlib>
#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

void check_positive(int64_t value, const char* what, const char* op) {
    if (value < 1) throw ValueError(std::string(op) + ": " + what + " must be ≥ 1, got " + std::to_string(value));
}

// mask[i][j] = hidden(p, j) with p = i + (S − T), the query's position on the key axis.   → (T, S)
template <class Hidden>
Tensor build_mask(int64_t T, int64_t S, const char* op, Hidden hidden) {
    if (T < 0 || S < 0)
        throw ValueError(std::string(op) + ": sizes must be ≥ 0, got T=" + std::to_string(T) + ", S=" + std::to_string(S));
    Tensor mask({T, S}, DType::f32);
    float* out = mask.data<float>();
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < S; ++j) out[i * S + j] = hidden(i + (S - T), j) ? 1.0f : 0.0f;
    return mask;
}

// |p − j| > w/2, compared in integers as 2·|p − j| > w.
bool outside_window(int64_t p, int64_t j, int64_t window) { return 2 * std::llabs(p - j) > window; }

}  // namespace

Tensor causal_mask(int64_t T, int64_t S) {
    // BEGIN SOLUTION A2.2
    return build_mask(T, S, "causal_mask", [](int64_t p, int64_t j) { return j > p; });
    // END SOLUTION
}

Tensor padding_mask_to_keys(const Tensor& padding) {
    if (padding.dim() != 2)
        throw ShapeError("padding_mask_to_keys: expected a (B, S) padding mask, got " + to_string(padding.shape()));
    // BEGIN SOLUTION A2.2
    return padding.to(DType::f32).view({padding.size(0), 1, 1, padding.size(1)});
    // END SOLUTION
}

Tensor sliding_window_mask(int64_t T, int64_t S, int64_t window, bool causal) {
    check_positive(window, "window", "sliding_window_mask");
    if (causal)
        return build_mask(T, S, "sliding_window_mask", [window](int64_t p, int64_t j) { return j > p || j <= p - window; });
    return build_mask(T, S, "sliding_window_mask", [window](int64_t p, int64_t j) { return outside_window(p, j, window); });
}

Tensor strided_sparse_mask(int64_t T, int64_t S, int64_t local_window, int64_t stride, int64_t global_tokens) {
    check_positive(local_window, "local_window", "strided_sparse_mask");
    check_positive(stride, "stride", "strided_sparse_mask");
    if (global_tokens < 0)
        throw ValueError("strided_sparse_mask: global_tokens must be ≥ 0, got " + std::to_string(global_tokens));
    return build_mask(T, S, "strided_sparse_mask", [=](int64_t p, int64_t j) {
        const bool local = !outside_window(p, j, local_window);
        const bool strided = (p - j) % stride == 0;
        const bool global = j < global_tokens || p < global_tokens;
        return !(local || strided || global);
    });
}

// a ∨ b = 1 where a + b ≠ 0 (both 0/1, so the sum is 0, 1 or 2).
Tensor mask_or(const Tensor& a, const Tensor& b) {
    if (!a.defined()) return b;
    if (!b.defined()) return a;
    NoGradGuard no_grad;
    const Tensor either = add(a.to(DType::f32), b.to(DType::f32));
    return masked_fill(either, either, 1.0);
}

Tensor combined_mask(const AttentionMask& mask, const Shape& scores_shape) {
    const int64_t rank = static_cast<int64_t>(scores_shape.size());
    if (rank < 2) throw ShapeError("attention mask: scores need (…, T, S), got " + to_string(scores_shape));
    const int64_t T = scores_shape[rank - 2], S = scores_shape[rank - 1];
    Tensor hidden = mask.causal ? causal_mask(T, S) : Tensor();
    if (mask.key_padding.defined()) {
        const Tensor& padding = mask.key_padding;
        if (rank < 3 || padding.dim() != 2 || padding.size(0) != scores_shape[0] || padding.size(1) != S)
            throw ShapeError("attention mask: key padding " + to_string(padding.shape()) + " does not fit scores " +
                             to_string(scores_shape) + " (expected (B, S))");
        Shape keys_shape(static_cast<std::size_t>(rank), 1);  // padding_mask_to_keys's, at the scores' rank: (B, 1, …, 1, S)
        keys_shape.front() = padding.size(0);
        keys_shape.back() = S;
        hidden = mask_or(hidden, padding_mask_to_keys(padding).view(keys_shape));
    }
    return mask_or(hidden, mask.pattern);
}

}  // namespace tf
