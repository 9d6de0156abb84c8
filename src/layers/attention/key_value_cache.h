// The key/value cache of one attention layer (layers/step_cache.h), and attention over it.
// Keys and values live in buffers with room to grow, of which the first `length` positions are
// filled: appending a step writes its positions in place (the buffers double when full), so a step
// costs O(length), not a copy of everything seen so far. Keys are held transposed, (B, H_kv, D,
// capacity): a query's scores q·k_j over all j are then D multiply-adds along contiguous positions,
// which vectorise over j, instead of one short dot product (and a horizontal sum) per key.
// Attention of new queries over the cache has two paths, held equal by tests/test_kv_cache.cpp:
// the readable one copies the filled positions out as (B, H_kv, L, D) tensors for the layer's own
// kernel (what forward computes); the fast one (decoding's one new query per step) reads the
// buffers in place, one (batch, head) at a time, with the gemm and softmax kernels.
#pragma once
#include <cstdint>
#include <vector>

#include "layers/step_cache.h"

namespace tf {

struct KeyValueCache : StepCache {
    Tensor keys_transposed{};    // (B, H_kv, D, capacity), the first `length` positions filled
    Tensor values{};             // (B, H_kv, capacity, D), the first `length` positions filled
    int64_t length = 0;          // positions held
    int64_t positions_seen = 0;  // self-attention: the absolute position of the next query
    std::vector<Tensor*> batch_tensors() override { return {&keys_transposed, &values}; }
};

// Writes K_new, V_new (B, H_kv, t, D) after the positions held, growing the buffers if needed.
void append_to_cache(KeyValueCache& cache, const Tensor& K_new, const Tensor& V_new);

// Keeps only the last `positions` positions (a sliding window's cache), moved to the front.
void keep_last_positions(KeyValueCache& cache, int64_t positions);

// The filled positions as tensors (B, H_kv, length, D): the readable path's keys and values.
Tensor filled_keys(const KeyValueCache& cache);
Tensor filled_values(const KeyValueCache& cache);

// The fast path, for queries that may see every held key but the causal future (no padding, no
// pattern): Q (B, H, t, D), query i at key position p = i + length − t seeing keys j ≤ p, query
// head h reading key/value head ⌊h·H_kv / H⌋:
//   out_i = Σ_j softmax_j(q_i·k_j / τ) v_j        → (B, H, t, D). No tape: decoding only.
Tensor attend_to_cache(const Tensor& Q, const KeyValueCache& cache, double tau);

}  // namespace tf
