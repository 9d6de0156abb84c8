// Tiled (flash) attention: a hand-computed case, equality with the composed softmax(QKᵀ/τ + M)·V
// path on odd shapes and tiles, gradcheck with causal and padding masks, fully masked rows, and
// the point of it all: memory that grows linearly in T.
#include "catch.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <tuple>

#include "analysis/theorems/attention_theorems.h"
#include "autograd/error.h"
#include "autograd/gradcheck.h"
#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"
#include "layers/attention/masks.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/attention/tiled_attention.h"

using namespace tf;

namespace {

using AttentionOp = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const TiledAttentionOptions&);

struct Outcome {
    Tensor output;
    std::vector<Tensor> grads;   // dQ, dK, dV
};

// Runs attention on fresh leaves, backward with a fixed random seed gradient.
Outcome run(AttentionOp attention, const std::vector<Tensor>& qkv, const TiledAttentionOptions& options) {
    std::vector<Tensor> leaves;
    for (const Tensor& x : qkv) leaves.push_back(x.clone().set_requires_grad());
    Tape::current().clear();
    Outcome outcome{attention(leaves[0], leaves[1], leaves[2], options), {}};
    Rng rng(5);
    Tape::current().backward(outcome.output, Tensor::uniform(outcome.output.shape(), -1, 1, rng, qkv[0].dtype()));
    for (const Tensor& leaf : leaves) outcome.grads.push_back(leaf.grad());
    return outcome;
}

std::vector<Tensor> random_qkv(int64_t B, int64_t H, int64_t T, int64_t S, int64_t D, DType dtype, uint64_t seed = 1) {
    Rng rng(seed);
    return {Tensor::uniform({B, H, T, D}, -1.5, 1.5, rng, dtype), Tensor::uniform({B, H, S, D}, -1.5, 1.5, rng, dtype),
            Tensor::uniform({B, H, S, D}, -1, 1, rng, dtype)};
}

// (B, S) mask padding the last `pad[b]` keys of batch item b.
Tensor padding_mask(int64_t S, const std::vector<int64_t>& pad) {
    const int64_t B = static_cast<int64_t>(pad.size());
    Tensor mask = Tensor::zeros({B, S});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t s = S - pad[b]; s < S; ++s) mask.set({b, s}, 1);
    return mask;
}

// The check `tapeformer theorems` runs: values and dQ, dK, dV within 1e-5 in f32 (1e-12 in f64).
void require_tiled_equals_composed(const std::vector<Tensor>& qkv, const TiledAttentionOptions& options) {
    const auto with = [&options](AttentionOp attention) {
        return [attention, &options](const Tensor& Q, const Tensor& K, const Tensor& V) { return attention(Q, K, V, options); };
    };
    const Measured equal = check_tiled_matches_composed(with(tiled_attention), with(composed_attention), qkv[0], qkv[1], qkv[2]);
    INFO(equal.numbers);
    CHECK(equal.holds);
}

}  // namespace

TEST_CASE("tiled attention: one query, two keys, by hand, with one-key tiles", "[unit]") {
    // scores = [q·k₀, q·k₁] / τ = [1, 0] (τ = 1);  weights = [e, 1] / (e + 1);  O = Σ_j w_j v_j
    const Tensor Q = test::f64({1, 0}, {1, 1, 1, 2});
    const Tensor K = test::f64({1, 0, 0, 1}, {1, 1, 2, 2});
    const Tensor V = test::f64({1, 2, 3, 4}, {1, 1, 2, 2});
    const double w0 = std::exp(1.0) / (std::exp(1.0) + 1), w1 = 1 / (std::exp(1.0) + 1);
    const Tensor O = tiled_attention(Q, K, V, {.temperature = 1.0, .query_tile = 1, .key_tile = 1});
    test::require_values(O, {w0 * 1 + w1 * 3, w0 * 2 + w1 * 4});
}

TEST_CASE("tiled attention: causal, the first query sees only the first key", "[unit]") {
    const Tensor Q = test::f64({1, 2, 3, 4}, {1, 1, 2, 2});
    const Tensor K = test::f64({5, 6, 7, 8}, {1, 1, 2, 2});
    const Tensor V = test::f64({1, 10, 100, 1000}, {1, 1, 2, 2});
    const Tensor O = tiled_attention(Q, K, V, {.causal = true, .query_tile = 1, .key_tile = 2});
    CHECK(O.at({0, 0, 0, 0}) == 1.0);
    CHECK(O.at({0, 0, 0, 1}) == 10.0);
    CHECK(O.at({0, 0, 1, 0}) > 99.0);   // the second query weighs key 1 (score (3·7+4·8)/√2) far above key 0
}

TEST_CASE("tiled attention: causal is bottom-right when S ≠ T, as masks.h", "[unit]") {
    // T = 2 queries over S = 4 keys: query i sits at key position i + 2, so the last one sees every key.
    std::vector<Tensor> qkv = random_qkv(1, 1, 2, 4, 3, DType::f64, 4);
    const Tensor causal = tiled_attention(qkv[0], qkv[1], qkv[2], {.causal = true, .query_tile = 1, .key_tile = 3});
    const Tensor full = tiled_attention(qkv[0], qkv[1], qkv[2], {.query_tile = 1, .key_tile = 3});
    CHECK(test::max_relative_difference(slice(causal, 2, 1, 2), slice(full, 2, 1, 2)) < 1e-14);
    const Tensor first_three = tiled_attention(slice(qkv[0], 2, 0, 1).clone(), slice(qkv[1], 2, 0, 3).clone(),
                                               slice(qkv[2], 2, 0, 3).clone());
    CHECK(test::max_relative_difference(slice(causal, 2, 0, 1), first_three) < 1e-14);
    // T = 4 over S = 2: queries 0 and 1 sit before every key and see none (output 0).
    qkv = random_qkv(1, 1, 4, 2, 3, DType::f64, 5);
    const Tensor early = tiled_attention(qkv[0], qkv[1], qkv[2], {.causal = true, .query_tile = 3, .key_tile = 1});
    for (double value : slice(early, 2, 0, 2).to_vector()) CHECK(value == 0.0);
    const Tensor reference = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], {.causal = true});
    CHECK(test::max_relative_difference(early, reference) < 1e-14);
}

TEST_CASE("tiled attention with a pattern mask equals the composed path", "[property]") {
    const auto case_t_s = GENERATE(std::make_pair(13, 13), std::make_pair(9, 14), std::make_pair(14, 9));
    // named one by one: clang 14 cannot capture structured bindings in a lambda
    const int T = std::get<0>(case_t_s), S = std::get<1>(case_t_s);
    const bool causal = GENERATE(false, true);
    INFO("T=" << T << " S=" << S << " causal=" << causal);
    const Tensor pattern = GENERATE_COPY(sliding_window_mask(T, S, 4, causal), strided_sparse_mask(T, S, 2, 3, 1));
    TiledAttentionOptions options{.causal = causal, .pattern_mask = pattern, .query_tile = 4, .key_tile = 5};
    options.key_padding_mask = padding_mask(S, {2, 0});
    require_tiled_equals_composed(random_qkv(2, 2, T, S, 6, DType::f32, T * S), options);
}

TEST_CASE("tiled attention: a fully masked query row gives 0 and 0 gradient, never NaN", "[unit]") {
    const std::vector<Tensor> qkv = random_qkv(2, 2, 5, 4, 3, DType::f32);
    const TiledAttentionOptions options{.key_padding_mask = padding_mask(4, {0, 4}), .query_tile = 2, .key_tile = 3};
    const Outcome tiled = run(tiled_attention, qkv, options);
    for (double value : slice(tiled.output, 0, 1, 2).to_vector()) CHECK(value == 0.0);
    for (const Tensor& grad : tiled.grads)   // dQ, dK, dV: nothing of batch 1 reaches the output
        for (double value : slice(grad, 0, 1, 2).to_vector()) CHECK(value == 0.0);
    for (const Tensor& grad : tiled.grads)
        for (double value : grad.to_vector()) CHECK(std::isfinite(value));
}

TEST_CASE("tiled attention over no keys or no queries is a shape error, not a division by zero", "[unit]") {
    // (B, H, T, S, D): an empty source (S = 0) once stopped the process with SIGFPE.
    for (const auto& [T, S] : {std::pair<int64_t, int64_t>{3, 0}, {0, 3}}) {
        const std::vector<Tensor> qkv = random_qkv(1, 2, T, S, 4, DType::f32);
        CHECK_THROWS_WITH(tiled_attention(qkv[0], qkv[1], qkv[2], {}), Catch::Contains("at least one item, one query and one key"));
    }
}

TEST_CASE("tiled attention: the reference GEMM loops give the fast path's values and gradients", "[unit]") {
    const std::vector<Tensor> qkv = random_qkv(1, 3, 19, 23, 8, DType::f32, 3);
    const TiledAttentionOptions options{.causal = true, .query_tile = 5, .key_tile = 7};
    const Outcome fast = run(tiled_attention, qkv, options);
    Outcome reference;
    {
        kernels::ReferenceKernels use_reference_loops;
        reference = run(tiled_attention, qkv, options);
    }
    CHECK(test::max_relative_difference(fast.output, reference.output) < 1e-5);
    for (int i = 0; i < 3; ++i) CHECK(test::max_relative_difference(fast.grads[i], reference.grads[i]) < 1e-5);
}

namespace {

// Heads [first, first + count) of width D from the rows of x (B, T, ·), as (B, count, T, D) — the
// split the readable path makes, from ops.
Tensor heads_from_rows(const Tensor& x, int64_t first, int64_t count, int64_t D) {
    const Tensor block = slice(x, 2, first * D, (first + count) * D);
    return permute(reshape(block, {x.size(0), x.size(1), count, D}), {0, 2, 1, 3});
}

// Key/value head ⌊h·H_kv/H⌋ for each query head h: (B, H_kv, S, D) → (B, H, S, D).
Tensor repeated(const Tensor& kv, int64_t H) {
    std::vector<int64_t> head_of;
    for (int64_t h = 0; h < H; ++h) head_of.push_back(h * kv.size(1) / H);
    return index_select(kv, 1, IndexTensor(head_of));
}

// (B, H, T, D) → (B, T, H·D)
Tensor merged(const Tensor& O) { return reshape(permute(O, {0, 2, 1, 3}), {O.size(0), O.size(2), O.size(1) * O.size(3)}); }

using AttentionOnInputs = std::function<Tensor(const std::vector<Tensor>&)>;

// The attention's output and each leaf's gradient, on fresh leaves of `inputs`, backward with one
// seed gradient.
std::vector<Tensor> outcome_of(const std::vector<Tensor>& inputs, const AttentionOnInputs& attention) {
    std::vector<Tensor> leaves;
    for (const Tensor& x : inputs) leaves.push_back(x.clone().set_requires_grad());
    Tape::current().clear();
    const Tensor O = attention(leaves);
    Rng rng(9);
    Tape::current().backward(O, Tensor::uniform(O.shape(), -1, 1, rng, O.dtype()));
    std::vector<Tensor> results{O};
    for (const Tensor& leaf : leaves) results.push_back(leaf.grad());
    return results;
}

// The largest relative difference between two outcomes, output and gradients alike.
double largest_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, test::max_relative_difference(a[i], b[i]));
    return worst;
}

// The fused op and the composed path from ops on the same leaves: the larger relative difference
// of the outputs and of each leaf's gradient.
double fused_against_composed(const std::vector<Tensor>& inputs, const AttentionOnInputs& fused, const AttentionOnInputs& composed) {
    return largest_difference(outcome_of(inputs, fused), outcome_of(inputs, composed));
}

}  // namespace

TEST_CASE("tiled self-attention reads the heads in place from one projection: composed path's values and gradients", "[property]") {
    const auto case_h_h_kv = GENERATE(std::make_pair(3, 3), std::make_pair(4, 2), std::make_pair(4, 1));
    const int H = std::get<0>(case_h_h_kv), H_kv = std::get<1>(case_h_h_kv);
    const auto case_t_query_tile_key_tile = GENERATE(std::make_tuple(13, 4, 5), std::make_tuple(37, 64, 64));
    const int T = std::get<0>(case_t_query_tile_key_tile), query_tile = std::get<1>(case_t_query_tile_key_tile), key_tile = std::get<2>(case_t_query_tile_key_tile);
    const bool causal = GENERATE(false, true);
    const int64_t B = 2, D = 5;
    INFO("H " << H << " H_kv " << H_kv << " T " << T << " tiles " << query_tile << "x" << key_tile << " causal " << causal);
    TiledAttentionOptions options{.causal = causal, .key_padding_mask = padding_mask(T, {2, 0}), .query_tile = query_tile,
                                  .key_tile = key_tile};
    Rng rng(T + H);
    const Tensor qkv = Tensor::uniform({B, T, (H + 2 * H_kv) * D}, -1.5, 1.5, rng);
    const double difference = fused_against_composed(
        {qkv}, [&](const auto& in) { return tiled_self_attention(in[0], {.heads = H, .kv_heads = H_kv}, options); },
        [&](const auto& in) {
            const Tensor Q = heads_from_rows(in[0], 0, H, D), K = heads_from_rows(in[0], H, H_kv, D),
                         V = heads_from_rows(in[0], H + H_kv, H_kv, D);
            return merged(composed_attention(Q, repeated(K, H), repeated(V, H), options));
        });
    CHECK(difference < 1e-5);
}

TEST_CASE("tiled self-attention: the fast path gives the reference loops' values and gradients, heads read in place",
          "[unit]") {
    // Both read the heads in place from the rows (row strides wider than a head): oneDNN's
    // strided products against the reference loops. Grouped heads, tiles that do not divide T,
    // padded keys.
    const int64_t B = 3, H = 4, H_kv = 2, T = 21, D = 6;
    Rng rng(17);
    const Tensor qkv = Tensor::uniform({B, T, (H + 2 * H_kv) * D}, -1.5, 1.5, rng);
    const TiledAttentionOptions options{.causal = true, .key_padding_mask = padding_mask(T, {0, 4, 1}), .query_tile = 8,
                                        .key_tile = 5};
    const AttentionOnInputs self_attention = [&](const std::vector<Tensor>& in) {
        return tiled_self_attention(in[0], {.heads = H, .kv_heads = H_kv}, options);
    };
    const std::vector<Tensor> fast = outcome_of({qkv}, self_attention);
    std::vector<Tensor> reference;
    {
        kernels::ReferenceKernels use_reference_loops;   // forward and backward alike
        reference = outcome_of({qkv}, self_attention);
    }
    CHECK(largest_difference(fast, reference) < 1e-5);
}

TEST_CASE("tiled cross-attention reads K and V in place from one projection: composed path's values and gradients", "[property]") {
    const auto case_h_h_kv = GENERATE(std::make_pair(2, 2), std::make_pair(4, 1));
    const int H = std::get<0>(case_h_h_kv), H_kv = std::get<1>(case_h_h_kv);
    const auto case_t_s = GENERATE(std::make_pair(9, 14), std::make_pair(14, 9));
    const int T = std::get<0>(case_t_s), S = std::get<1>(case_t_s);
    const int64_t B = 2, D = 6;
    INFO("H " << H << " H_kv " << H_kv << " T " << T << " S " << S);
    TiledAttentionOptions options{.key_padding_mask = padding_mask(S, {0, 3}), .pattern_mask = sliding_window_mask(T, S, 4, false),
                                  .temperature = 0.8, .query_tile = 4, .key_tile = 3};
    Rng rng(T * S);
    const Tensor q = Tensor::uniform({B, T, H * D}, -1.5, 1.5, rng), kv = Tensor::uniform({B, S, 2 * H_kv * D}, -1.5, 1.5, rng);
    const double difference = fused_against_composed(
        {q, kv}, [&](const auto& in) { return tiled_cross_attention(in[0], in[1], {.heads = H, .kv_heads = H_kv}, options); },
        [&](const auto& in) {
            const Tensor Q = heads_from_rows(in[0], 0, H, D), K = heads_from_rows(in[1], 0, H_kv, D),
                         V = heads_from_rows(in[1], H_kv, H_kv, D);
            return merged(composed_attention(Q, repeated(K, H), repeated(V, H), options));
        });
    CHECK(difference < 1e-5);
}

TEST_CASE("tiled attention's products batched over runs of batch items: uneven runs, each item its own padding", "[unit]") {
    // Work this small runs on one thread, which takes two runs: five items make runs of 3 and 2. One
    // head, one tile: every product of a run is one GEMM over its items, each item with its own mask.
    const int64_t B = 5, T = 7, D = 4;
    Rng rng(41);
    const Tensor qkv = Tensor::uniform({B, T, 3 * D}, -1.5, 1.5, rng);
    const TiledAttentionOptions options{.causal = true, .key_padding_mask = padding_mask(T, {0, 1, 2, 3, 6})};
    const double difference = fused_against_composed(
        {qkv}, [&](const auto& in) { return tiled_self_attention(in[0], {.heads = 1, .kv_heads = 1}, options); },
        [&](const auto& in) {
            return merged(composed_attention(heads_from_rows(in[0], 0, 1, D), heads_from_rows(in[0], 1, 1, D),
                                             heads_from_rows(in[0], 2, 1, D), options));
        });
    CHECK(difference < 1e-5);
}

TEST_CASE("tiled attention: tiles that no mask touches skip the masking pass, and rows of 16 keys and more sum in lanes",
          "[unit]") {
    // Query tiles of 16 and key tiles of 20 (a row of 16 lanes and a tail of 4). Causal: most tiles
    // lie wholly below the diagonal and are not masked, and the edge cuts the others at every
    // offset. Without causal masking only item 1 has padding (its last 5 keys), so its last key
    // tile is masked where item 0's is not. A temperature other than √D: it scales inside the exp.
    const bool causal = GENERATE(false, true);
    INFO("causal " << causal);
    const int64_t B = 2, H = 2, T = 70, D = 8;
    const TiledAttentionOptions options{.causal = causal, .key_padding_mask = padding_mask(T, {0, 5}), .temperature = 0.7,
                                        .query_tile = 16, .key_tile = 20};
    const double difference = fused_against_composed(
        random_qkv(B, H, T, T, D, DType::f32, 23),
        [&](const auto& in) { return tiled_attention(in[0], in[1], in[2], options); },
        [&](const auto& in) { return composed_attention(in[0], in[1], in[2], options); });
    CHECK(difference < 1e-5);
}

TEST_CASE("tiled attention's backward shares key tiles between threads when there are fewer heads than threads", "[unit]") {
    // One key/value head (B = 1, two query heads grouped on it) and 2 or 3 threads: the key tiles
    // are shared out, each thread summing dQ in its own buffer. Against one thread, which walks
    // the heads' key tiles in order: the same gradients to float rounding.
    const int threads = GENERATE(2, 3);
    const bool causal = GENERATE(false, true);
    INFO(threads << " threads, causal " << causal);
    Rng rng(31);
    const Tensor qkv = Tensor::uniform({1, 300, 4 * 16}, -1, 1, rng), seed = Tensor::uniform({1, 300, 32}, -1, 1, rng);
    const TiledAttentionOptions options{.causal = causal, .query_tile = 32, .key_tile = 64};
    const auto gradient_with = [&](int thread_count) {
        const int previous = kernels::num_threads();
        kernels::set_num_threads(thread_count);
        const Tensor leaf = qkv.clone().set_requires_grad();
        Tape::current().clear();
        Tape::current().backward(tiled_self_attention(leaf, {.heads = 2, .kv_heads = 1}, options), seed);
        kernels::set_num_threads(previous);
        return leaf.grad();
    };
    CHECK(test::max_relative_difference(gradient_with(threads), gradient_with(1)) < 1e-5);
}

TEST_CASE("tiled attention's gradients need no zeroed memory: each backward task clears the rows it adds into", "[unit]") {
    // The gradient tensors are allocated without zeroing. NaN-filled tensors of their size are freed
    // into this thread's buffer pool just before, so a row that no task cleared would read NaN (under
    // AddressSanitizer nothing is pooled, and this checks the values only). Both ways of sharing the
    // backward out: by heads (two items, two key/value heads), and by key tiles (one item, one
    // key/value head, three threads). In the first, item 1 pads every key: its rows get nothing from
    // the tiles, only the clearing.
    const auto case_b_h_h_kv_t_d_threads = GENERATE(std::make_tuple(2, 4, 2, 70, 8, 2), std::make_tuple(1, 2, 1, 300, 16, 3));
    const int B = std::get<0>(case_b_h_h_kv_t_d_threads), H = std::get<1>(case_b_h_h_kv_t_d_threads), H_kv = std::get<2>(case_b_h_h_kv_t_d_threads), T = std::get<3>(case_b_h_h_kv_t_d_threads), D = std::get<4>(case_b_h_h_kv_t_d_threads), threads = std::get<5>(case_b_h_h_kv_t_d_threads);
    INFO("B " << B << " H " << H << " H_kv " << H_kv << " T " << T << ", " << threads << " threads");
    const TiledAttentionOptions options{.causal = true, .key_padding_mask = padding_mask(T, B == 2 ? std::vector<int64_t>{3, T} : std::vector<int64_t>{5}),
                                        .query_tile = 32, .key_tile = 64};
    Rng rng(43);
    const Tensor qkv = Tensor::uniform({B, T, (H + 2 * H_kv) * D}, -1.5, 1.5, rng);
    const std::vector<Tensor> composed = outcome_of({qkv}, [&](const auto& in) {
        const Tensor Q = heads_from_rows(in[0], 0, H, D), K = heads_from_rows(in[0], H, H_kv, D), V = heads_from_rows(in[0], H + H_kv, H_kv, D);
        return merged(composed_attention(Q, repeated(K, H), repeated(V, H), options));
    });
    {
        std::vector<Tensor> poisoned;   // held together, then freed together: four blocks of NaN on top of the pool
        for (int i = 0; i < 4; ++i) poisoned.push_back(Tensor::full(qkv.shape(), std::numeric_limits<double>::quiet_NaN()));
    }
    const int previous = kernels::num_threads();
    kernels::set_num_threads(threads);
    const std::vector<Tensor> fused = outcome_of({qkv}, [&](const auto& in) { return tiled_self_attention(in[0], {.heads = H, .kv_heads = H_kv}, options); });
    kernels::set_num_threads(previous);
    const std::vector<double> gradient = fused[1].to_vector();
    CHECK(std::all_of(gradient.begin(), gradient.end(), [](double value) { return std::isfinite(value); }));
    CHECK(largest_difference(fused, composed) < 1e-5);
}

TEST_CASE("tiled self- and cross-attention: head counts that do not fit the rows are errors naming the op", "[unit]") {
    const Tensor qkv = Tensor::zeros({2, 5, 24}), q = Tensor::zeros({2, 5, 8}), kv = Tensor::zeros({2, 6, 16});
    CHECK_THROWS_WITH(tiled_self_attention(qkv, {.heads = 4, .kv_heads = 3}), Catch::Contains("tiled_self_attention") && Catch::Contains("qkv (2,5,24)"));
    CHECK_THROWS_AS(tiled_self_attention(qkv, {.heads = 5, .kv_heads = 5}), ShapeError);   // 24 is not 15·D
    CHECK_THROWS_WITH(tiled_cross_attention(q, kv, {.heads = 2, .kv_heads = 1}), Catch::Contains("tiled_cross_attention") && Catch::Contains("kv (2,6,16)"));
    CHECK_THROWS_WITH(tiled_cross_attention(q, kv, {.heads = 2, .kv_heads = 2}, {.key_padding_mask = Tensor::zeros({2, 5})}),
                      Catch::Contains("key_padding_mask") && Catch::Contains("(B, S)"));
    CHECK(tiled_cross_attention(q, kv, {.heads = 2, .kv_heads = 2}).shape() == Shape{2, 5, 8});
}

TEST_CASE("tiled attention: shape, mask and tile errors name the op and the shapes", "[unit]") {
    const std::vector<Tensor> qkv = random_qkv(2, 2, 5, 4, 3, DType::f32);
    CHECK_THROWS_AS(tiled_attention(qkv[0], qkv[1], qkv[0]), ShapeError);
    CHECK_THROWS_WITH(tiled_attention(qkv[0], qkv[1], qkv[2], {.key_padding_mask = Tensor::zeros({2, 5})}),
                      Catch::Contains("tiled_attention") && Catch::Contains("(B, S)"));
    CHECK_THROWS_AS(tiled_attention(qkv[0], qkv[1], qkv[2], {.query_tile = 0}), ValueError);
    CHECK_THROWS_WITH(tiled_attention(qkv[0], qkv[1], qkv[2], {.pattern_mask = Tensor::zeros({4, 5})}),
                      Catch::Contains("pattern_mask") && Catch::Contains("(T, S)"));
}

TEST_CASE("tiled attention equals the composed path in f32: values and Q/K/V gradients", "[property]") {
    const auto case_t_s_query_tile_key_tile = GENERATE(std::make_tuple(37, 29, 7, 5), std::make_tuple(29, 37, 64, 64),
                                                       std::make_tuple(33, 33, 1, 3), std::make_tuple(70, 45, 16, 32));
    const int T = std::get<0>(case_t_s_query_tile_key_tile), S = std::get<1>(case_t_s_query_tile_key_tile), query_tile = std::get<2>(case_t_s_query_tile_key_tile), key_tile = std::get<3>(case_t_s_query_tile_key_tile);
    const bool causal = GENERATE(false, true);
    const bool padded = GENERATE(false, true);
    INFO("T=" << T << " S=" << S << " tiles " << query_tile << "x" << key_tile << " causal=" << causal << " padded=" << padded);
    TiledAttentionOptions options{.causal = causal, .query_tile = query_tile, .key_tile = key_tile};
    if (padded) options.key_padding_mask = padding_mask(S, {3, S - 1});
    require_tiled_equals_composed(random_qkv(2, 3, T, S, 12, DType::f32, T + S), options);
}

TEST_CASE("tiled attention gradcheck in f64: causal and padding masks, tiles that do not divide T or S", "[gradcheck]") {
    const bool causal = GENERATE(false, true);
    const auto case_t_s = GENERATE(std::make_pair(7, 9), std::make_pair(8, 5));
    const int T = std::get<0>(case_t_s), S = std::get<1>(case_t_s);
    INFO("T=" << T << " S=" << S << " causal=" << causal);
    const std::vector<Tensor> qkv = random_qkv(2, 2, T, S, 4, DType::f64, 7);
    const TiledAttentionOptions options{.causal = causal, .key_padding_mask = padding_mask(S, {2, 0}),
                                        .temperature = 1.5, .query_tile = 3, .key_tile = 4};
    const auto result = gradcheck([&](const auto& in) { return tiled_attention(in[0], in[1], in[2], options); }, qkv);
    INFO(result.message);
    CHECK(result.ok);
}

namespace {
// Tensor bytes allocated at the peak of one forward + backward, above what was live before it.
int64_t peak_bytes_of(AttentionOp attention, int64_t T) {
    std::vector<Tensor> qkv = random_qkv(1, 2, T, T, 16, DType::f32);
    for (Tensor& x : qkv) x.set_requires_grad();
    const Tensor seed = Tensor::ones({1, 2, T, 16});
    Tape::current().clear();
    const int64_t live_before = memory::live_bytes();
    memory::reset_peak();
    {
        const Tensor O = attention(qkv[0], qkv[1], qkv[2], {.causal = true});
        Tape::current().backward(O, seed);
    }
    return memory::peak_bytes() - live_before;
}
}  // namespace

TEST_CASE("tiled attention memory grows linearly in T, the composed path's quadratically", "[property]") {
    const double tiled_ratio = double(peak_bytes_of(tiled_attention, 512)) / double(peak_bytes_of(tiled_attention, 128));
    const double composed_ratio =
        double(peak_bytes_of(composed_attention, 512)) / double(peak_bytes_of(composed_attention, 128));
    INFO("tiled ratio " << tiled_ratio << ", composed ratio " << composed_ratio);
    CHECK(tiled_ratio < 6);
    CHECK(tiled_ratio > 3);
    CHECK(composed_ratio > 10);
}
