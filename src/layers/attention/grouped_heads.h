// Grouped-query attention's head map (Ainslie et al. 2023, "GQA"): H query heads share H_kv
// key/value heads, G = H / H_kv consecutive query heads to each. Every kernel and layer that
// reads a key/value head for a query head asks this one function.
#pragma once
#include <cstdint>

namespace tf {

// Query head h reads key/value head g = ⌊h·H_kv / H⌋ = ⌊h / G⌋ (H_kv divides H).
// H_kv = H is plain multi-head attention (g = h); H_kv = 1 is multi-query attention (g = 0).
constexpr int64_t kv_head_of(int64_t query_head, int64_t heads, int64_t kv_heads) {
    return query_head * kv_heads / heads;
}

}  // namespace tf
