// Tiled ("flash") attention: softmax(Q·Kᵀ/τ + M)·V computed tile by tile with an online softmax,
// forward and backward, never holding the T×S score matrix (FlashAttention-2, Dao 2023). It saves
// only the output and one logsumexp per query row, so its extra memory grows linearly in T.
#pragma once
#include <cstdint>
#include <optional>

#include "autograd/tensor.h"

namespace tf {

struct TiledAttentionOptions {
    bool causal = false;              // query i sees keys j ≤ i + (S − T): bottom-right, as masks.h
    Tensor key_padding_mask{};        // (B, S), nonzero = padding (never attended); undefined = none
    Tensor pattern_mask{};            // (T, S), nonzero = hidden (masks.h patterns); undefined = none
    std::optional<double> temperature{};  // τ in softmax(Q·Kᵀ/τ); √D when unset
    int64_t query_tile = 128;         // rows of Q per tile (128 × 128: a tile's scores stay in L2 cache)
    int64_t key_tile = 128;           // rows of K and V per tile
};

// O = softmax(Q·Kᵀ/τ + M)·V       Q: (B, H, T, D)   K, V: (B, H, S, D)   O: (B, H, T, D)
// M is −∞ at masked (query, key) pairs. A query row with every key masked outputs 0 with 0
// gradient. One fused op on the tape ("tiled_attention"), f32 or f64.
Tensor tiled_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options = {});

// How many heads the projections hold: H query heads, H_kv key/value heads (H a multiple of H_kv;
// query head h reads key/value head ⌊h·H_kv / H⌋, grouped-query attention when H_kv < H).
struct AttentionHeads {
    int64_t heads = 1;
    int64_t kv_heads = 1;
};

// The same kernel reading every head in place from the rows of the projections, so a multi-head
// layer neither splits nor merges its heads with copies (one fused op on the tape each):
// self-attention   qkv: (B, T, (H + 2·H_kv)·D), each row [q_1 … q_H | k_1 … k_H_kv | v_1 … v_H_kv]
// cross-attention  q: (B, T, H·D) and kv: (B, S, 2·H_kv·D), each row of kv [k_1 … k_H_kv | v_1 … v_H_kv]
// O: (B, T, H·D), head h's output in columns [h·D, (h + 1)·D): the heads already merged.
Tensor tiled_self_attention(const Tensor& qkv, const AttentionHeads& heads, const TiledAttentionOptions& options = {});
Tensor tiled_cross_attention(const Tensor& q, const Tensor& kv, const AttentionHeads& heads,
                             const TiledAttentionOptions& options = {});

// The same attention composed from plain ops (matmul, masked_fill, softmax): materialises the
// (B, H, T, S) weights. The readable reference tiled_attention is tested and benchmarked against.
Tensor composed_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const TiledAttentionOptions& options = {});

}  // namespace tf
