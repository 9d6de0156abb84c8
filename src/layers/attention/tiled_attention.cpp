// Tiled attention, the op: the checks of each entry point, where each reads its heads (in
// (B, H, T, D) tensors, or in place in the rows of the projections (B, T, ·), so a multi-head layer
// needs no copy to split or merge its heads), and the one fused op recorded on the tape. The kernel
// it runs is tiled_kernel.cpp, spread over threads by tiled_work_split.cpp.
#include "layers/attention/tiled_attention.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/rounded_copy.h"
#include "autograd/tape.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/attention/tiled_bf16.h"
#include "layers/attention/tiled_kernel.h"
#include "layers/attention/tiled_layout.h"
#include "layers/attention/tiled_work_split.h"

namespace tf {
namespace {

using tiled::Backward;
using tiled::HeadPlacement;
using tiled::heads_at;
using tiled::heads_first;
using tiled::heads_in_rows;
using tiled::Placements;
using tiled::Problem;
using tiled::RoundedTensors;

// The sizes of one attention problem: B, H query heads and H_kv key/value heads of width D, T
// queries, S keys.
struct Sizes {
    int64_t B, H, H_kv, T, S, D;
};

// The mask and option rules every entry point shares; `where` names the op and its shapes.
void check_options(const std::string& where, const Sizes& n, const TiledAttentionOptions& options) {
    const Tensor& mask = options.key_padding_mask;
    if (mask.defined() && mask.shape() != Shape{n.B, n.S})
        throw ShapeError(where + ": key_padding_mask " + to_string(mask.shape()) + " should be (B, S) = " + to_string(Shape{n.B, n.S}));
    const Tensor& pattern = options.pattern_mask;
    if (pattern.defined() && pattern.shape() != Shape{n.T, n.S})
        throw ShapeError(where + ": pattern_mask " + to_string(pattern.shape()) + " should be (T, S) = " + to_string(Shape{n.T, n.S}));
    if (options.query_tile < 1 || options.key_tile < 1)
        throw ValueError(where + ": tile sizes must be ≥ 1, got " + std::to_string(options.query_tile) + " and " +
                         std::to_string(options.key_tile));
    if (options.temperature && !(*options.temperature > 0))
        throw ValueError(where + ": temperature must be > 0, got " + std::to_string(*options.temperature));
}

std::string shapes_text(const std::vector<std::pair<const char*, const Tensor*>>& named) {
    std::string text;
    for (const auto& [name, tensor] : named) text += (text.empty() ? "" : ", ") + std::string(name) + " " + to_string(tensor->shape());
    return text;
}

void check_same_dtype(const std::string& where, const std::vector<Tensor>& inputs) {
    for (const Tensor& x : inputs)
        if (x.dtype() != inputs.front().dtype()) throw ValueError(where + ": dtypes differ");
}

// Q (B, H, T, D), K and V (B, H, S, D): the heads-first entry point's sizes.
Sizes heads_first_sizes(const char* op, const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    const std::string where = std::string(op) + ": " + shapes_text({{"Q", &Q}, {"K", &K}, {"V", &V}});
    if (Q.dim() != 4 || K.dim() != 4 || V.dim() != 4 || K.shape() != V.shape() || Q.size(0) != K.size(0) ||
        Q.size(1) != K.size(1) || Q.size(3) != K.size(3))
        throw ShapeError(where + ": expected Q (B, H, T, D), K and V (B, H, S, D)");
    check_same_dtype(where, {Q, K, V});
    const Sizes n{Q.size(0), Q.size(1), Q.size(1), Q.size(2), K.size(2), Q.size(3)};
    check_options(where, n, options);
    return n;
}

// A 0/1 mask as one byte per element: 1 = never attend; empty for an undefined mask.
std::vector<uint8_t> mask_bytes(const Tensor& mask) {
    std::vector<uint8_t> bytes;
    if (!mask.defined()) return bytes;
    for (double value : mask.to_vector()) bytes.push_back(value != 0);
    return bytes;
}

// What the tape entry keeps for the backward: the masks as bytes (the padding all 0 when absent).
struct MaskBytes {
    std::vector<uint8_t> padding;   // (B, S)
    std::vector<uint8_t> pattern;   // (T, S), or empty
};

MaskBytes make_mask_bytes(const Sizes& n, const TiledAttentionOptions& options) {
    MaskBytes masks{mask_bytes(options.key_padding_mask), mask_bytes(options.pattern_mask)};
    if (masks.padding.empty()) masks.padding.assign(n.B * n.S, 0);
    return masks;
}

template <class Real>
Problem<Real> make_problem(const Sizes& n, const std::vector<Tensor>& inputs, const RoundedTensors& rounded, const Placements& at,
                           const MaskBytes& masks, const TiledAttentionOptions& options) {
    const double tau = options.temperature ? *options.temperature : std::sqrt(static_cast<double>(n.D));
    return Problem<Real>{heads_at<Real>(at.Q, inputs, rounded), heads_at<Real>(at.K, inputs, rounded),
                         heads_at<Real>(at.V, inputs, rounded), masks.padding.data(),
                         masks.pattern.empty() ? nullptr : masks.pattern.data(), n.H, n.H / n.H_kv, n.T, n.S, n.D,
                         static_cast<Real>(1.0 / tau), options.causal, options.query_tile, options.key_tile,
                         kernels::use_reference(), !rounded.empty()};
}

// The one op every entry point records: O (out_shape, its heads where at.O says) from the inputs
// that hold Q, K and V; the backward gives each input a gradient of its own shape and layout.
Tensor attention_on_placements(const char* op, const std::vector<Tensor>& inputs, const Sizes& n, const Placements& at,
                               const Shape& out_shape, const TiledAttentionOptions& options) {
    // With no query or no key a tile holds no scores, and items_per_tile would divide by that 0.
    if (n.B < 1 || n.T < 1 || n.S < 1)
        throw ShapeError(std::string(op) + ": " + std::to_string(n.B) + " items of " + std::to_string(n.T) + " queries and " +
                         std::to_string(n.S) + " keys: attention needs at least one item, one query and one key");
    const MaskBytes masks = make_mask_bytes(n, options);
    const DType dtype = inputs.front().dtype();
    Tensor O(out_shape, dtype);            // heads where at.O says
    Tensor L({n.B, n.H, n.T}, dtype);      // (B, H, T)
    // the inputs rounded for bf16 products (none in fp32), kept for the backward
    auto rounded = std::make_shared<const RoundedTensors>(products_in_bf16(dtype) ? tiled::rounded_copies(inputs) : RoundedTensors{});
    dispatch(dtype, [&](auto zero) {
        using Real = decltype(zero);
        tiled::forward(make_problem<Real>(n, inputs, *rounded, at, masks, options), n.B, at.O.in(O.data<Real>()), L.data<Real>());
    });
    return record(op, inputs, O, [inputs, rounded, n, at, O, L, masks, options](const Tensor& dO) -> Grads {
        Grads grads;
        // Not zeroed here: the kernel's tasks zero the rows they own (zero_rows), and the rows of
        // dQ, dK and dV together cover every value of every input.
        for (const Tensor& x : inputs) grads.emplace_back(x.shape(), x.dtype());
        const RoundedTensors dO_rounded = rounded->empty() ? RoundedTensors{} : tiled::rounded_copies({dO});
        dispatch(O.dtype(), [&](auto zero) {
            using Real = decltype(zero);
            const auto gradient = [&](const HeadPlacement& place) { return place.in(grads[place.input].data<Real>()); };
            const HeadPlacement dO_at{0, at.O.column, at.O.batch_stride, at.O.head_stride, at.O.row_stride};
            const Backward<Real> g{at.O.in(O.data<Real>()), heads_at<Real>(dO_at, {dO}, dO_rounded), L.data<Real>(),
                                   gradient(at.Q), gradient(at.K), gradient(at.V)};
            tiled::backward(make_problem<Real>(n, inputs, *rounded, at, masks, options), g, n.B);
        });
        return grads;
    });
}

}  // namespace

// ── tiled_attention ──  O = softmax(Q·Kᵀ/τ + M)·V, saving O and L = logsumexp per query row
// Backward: dQ, dK, dV tile by tile from Q, K, V, O, L and dO (see backward_tile).
Tensor tiled_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    const Sizes n = heads_first_sizes("tiled_attention", Q, K, V, options);
    const Placements at{heads_first(0, n.H, n.T, n.D), heads_first(1, n.H, n.S, n.D), heads_first(2, n.H, n.S, n.D),
                        heads_first(0, n.H, n.T, n.D)};
    return attention_on_placements("tiled_attention", {Q, K, V}, n, at, Q.shape(), options);
}

// ── tiled_self_attention ──  the same, every head read in place from the rows of one projection:
// qkv (B, T, (H + 2·H_kv)·D) = [Q heads | K heads | V heads] per row  →  O (B, T, H·D), heads side by side
Tensor tiled_self_attention(const Tensor& qkv, const AttentionHeads& heads, const TiledAttentionOptions& options) {
    const std::string where = "tiled_self_attention: qkv " + to_string(qkv.shape()) + ", " + std::to_string(heads.heads) +
                              " heads, " + std::to_string(heads.kv_heads) + " key/value heads";
    const int64_t head_columns = heads.heads + 2 * heads.kv_heads;
    if (qkv.dim() != 3 || heads.heads < 1 || heads.kv_heads < 1 || heads.heads % heads.kv_heads != 0 ||
        qkv.size(2) % head_columns != 0)
        throw ShapeError(where + ": expected qkv (B, T, (H + 2·H_kv)·D) with H a multiple of H_kv");
    const int64_t B = qkv.size(0), T = qkv.size(1), W = qkv.size(2), D = W / head_columns;
    const Sizes n{B, heads.heads, heads.kv_heads, T, T, D};
    check_options(where, n, options);
    const Placements at{heads_in_rows(0, T, W, 0, D), heads_in_rows(0, T, W, n.H * D, D),
                        heads_in_rows(0, T, W, (n.H + n.H_kv) * D, D), heads_in_rows(0, T, n.H * D, 0, D)};
    return attention_on_placements("tiled_self_attention", {qkv}, n, at, {B, T, n.H * D}, options);
}

// ── tiled_cross_attention ──  queries from q (B, T, H·D), keys and values in place from
// kv (B, S, 2·H_kv·D) = [K heads | V heads] per row  →  O (B, T, H·D)
Tensor tiled_cross_attention(const Tensor& q, const Tensor& kv, const AttentionHeads& heads, const TiledAttentionOptions& options) {
    const std::string where = "tiled_cross_attention: " + shapes_text({{"q", &q}, {"kv", &kv}}) + ", " +
                              std::to_string(heads.heads) + " heads, " + std::to_string(heads.kv_heads) + " key/value heads";
    if (q.dim() != 3 || kv.dim() != 3 || q.size(0) != kv.size(0) || heads.heads < 1 || heads.kv_heads < 1 ||
        heads.heads % heads.kv_heads != 0 || q.size(2) % heads.heads != 0 ||
        kv.size(2) != 2 * heads.kv_heads * (q.size(2) / heads.heads))
        throw ShapeError(where + ": expected q (B, T, H·D) and kv (B, S, 2·H_kv·D) with H a multiple of H_kv");
    check_same_dtype(where, {q, kv});
    const int64_t B = q.size(0), T = q.size(1), S = kv.size(1), D = q.size(2) / heads.heads;
    const Sizes n{B, heads.heads, heads.kv_heads, T, S, D};
    check_options(where, n, options);
    const int64_t kv_width = kv.size(2);
    const Placements at{heads_in_rows(0, T, n.H * D, 0, D), heads_in_rows(1, S, kv_width, 0, D),
                        heads_in_rows(1, S, kv_width, n.H_kv * D, D), heads_in_rows(0, T, n.H * D, 0, D)};
    return attention_on_placements("tiled_cross_attention", {q, kv}, n, at, {B, T, n.H * D}, options);
}

// ── composed_attention ──  the same formula from plain ops and the masks of masks.h
Tensor composed_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options) {
    heads_first_sizes("composed_attention", Q, K, V, options);
    const AttentionMask mask{.causal = options.causal, .key_padding = options.key_padding_mask,
                             .pattern = options.pattern_mask};
    const double tau = options.temperature ? *options.temperature : std::sqrt(static_cast<double>(Q.size(3)));
    return scaled_dot_product_attention(Q, K, V, mask, tau);   // (B, H, T, D)
}

}  // namespace tf
