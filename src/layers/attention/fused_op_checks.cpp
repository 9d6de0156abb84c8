// Gradcheck cases for tiled_attention (heads first, or read in place from projection rows),
// causal_prefix_attention and additive_scores: small f64 problems whose tiles do not divide the
// sequence, with each mask the kernels take.
#include "layers/attention/fused_op_checks.h"

#include "layers/attention/additive_scores.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/masks.h"
#include "layers/attention/tiled_attention.h"

namespace tf {

namespace {

using Inputs = std::vector<Tensor>;

// Q (B, H, T, D), K and V (B, H, S, D), uniform in [−1, 1) from a fixed seed.
std::function<Inputs()> attention_inputs(int64_t T, int64_t S, uint64_t seed) {
    return [T, S, seed] {
        Rng rng(seed);
        return Inputs{Tensor::uniform({1, 2, T, 3}, -1, 1, rng, DType::f64), Tensor::uniform({1, 2, S, 3}, -1, 1, rng, DType::f64),
                      Tensor::uniform({1, 2, S, 3}, -1, 1, rng, DType::f64)};
    };
}

OpCheck tiled_case(const std::string& variant, int64_t T, int64_t S, const TiledAttentionOptions& options) {
    return {"tiled_attention", variant, attention_inputs(T, S, 11),
            [options](const Inputs& in) { return tiled_attention(in[0], in[1], in[2], options); }};
}

}  // namespace

std::vector<OpCheck> fused_attention_op_checks() {
    const Tensor padding = Tensor::from_data({0, 0, 0, 0, 1}, {1, 5}, DType::f64);
    return {
        tiled_case("T = S = 5, tiles 2 x 3", 5, 5, {.query_tile = 2, .key_tile = 3}),
        tiled_case("causal T = S = 5, tiles 3 x 2, tau 0.7", 5, 5, {.causal = true, .temperature = 0.7, .query_tile = 3, .key_tile = 2}),
        tiled_case("causal bottom-right T = 3, S = 5, padding", 3, 5,
                   {.causal = true, .key_padding_mask = padding, .query_tile = 2, .key_tile = 2}),
        tiled_case("sliding window 2, T = 4, S = 5", 4, 5, {.pattern_mask = sliding_window_mask(4, 5, 2, false), .key_tile = 2}),
        {"tiled_self_attention", "qkv (2,5,(4+2+2)·3): 4 query heads over 2 key/value heads, causal, padding, tiles 2 x 3",
         [] {
             Rng rng(14);
             return Inputs{Tensor::uniform({2, 5, 24}, -1, 1, rng, DType::f64)};
         },
         [](const Inputs& in) {
             const Tensor padding = Tensor::from_data({0, 0, 0, 0, 1, 0, 0, 0, 0, 0}, {2, 5}, DType::f64);
             return tiled_self_attention(in[0], {.heads = 4, .kv_heads = 2},
                                         {.causal = true, .key_padding_mask = padding, .query_tile = 2, .key_tile = 3});
         }},
        {"tiled_cross_attention", "q (2,3,4), kv (2,5,8): 2 heads, tau 0.9, tiles 2 x 2",
         [] {
             Rng rng(15);
             return Inputs{Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64), Tensor::uniform({2, 5, 8}, -1, 1, rng, DType::f64)};
         },
         [](const Inputs& in) {
             return tiled_cross_attention(in[0], in[1], {.heads = 2, .kv_heads = 2}, {.temperature = 0.9, .query_tile = 2, .key_tile = 2});
         }},
        {"causal_prefix_attention", "(1,2,4,3) with V (1,2,4,2)",
         [] {
             Rng rng(12);
             return Inputs{Tensor::uniform({1, 2, 4, 3}, -1, 1, rng, DType::f64), Tensor::uniform({1, 2, 4, 3}, -1, 1, rng, DType::f64),
                           Tensor::uniform({1, 2, 4, 2}, -1, 1, rng, DType::f64)};
         },
         [](const Inputs& in) { return causal_prefix_attention(in[0], in[1], in[2]); }},
        {"additive_scores", "keys (2,3,5), query (2,5), v (1,5)",
         [] {
             Rng rng(13);
             return Inputs{Tensor::uniform({2, 3, 5}, -1, 1, rng, DType::f64), Tensor::uniform({2, 5}, -1, 1, rng, DType::f64),
                           Tensor::uniform({1, 5}, -1, 1, rng, DType::f64)};
         },
         [](const Inputs& in) { return additive_scores(in[0], in[1], in[2]); }},
    };
}

const std::vector<OpCheck>& all_op_checks() {
    static const std::vector<OpCheck> table = [] {
        std::vector<OpCheck> all = op_checks();
        for (OpCheck& check : fused_attention_op_checks()) all.push_back(std::move(check));
        return all;
    }();
    return table;
}

}  // namespace tf
