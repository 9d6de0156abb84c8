// How the tiled attention kernel's work is spread over threads: which batch items a tile spans,
// which tasks each thread takes forward and backward, and which rows of the gradients each task
// zeroes and owns. The tiles themselves are tiled_kernel.cpp's.
#include "layers/attention/tiled_work_split.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include <omp.h>

#include "autograd/kernels/mode.h"
#include "layers/attention/tiled_kernel.h"

namespace tf::tiled {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A tile's block of scores holds at most this many values (64 KiB in f32) over all its items, so
// that the block, its weights and their gradient stay in one core's L2 cache while the passes over
// them run (exp, the softmax backward, bf16 rounding). Batching more items makes fewer, larger
// products, but past this the passes wait on memory, and a step takes longer than with one item
// at a time (bench_attention times the layers).
constexpr int64_t kTileScoreValues = int64_t{1} << 14;

// How many batch items a tile spans: enough tasks for every thread (two each, for balance) of the
// `per_item` tasks each item has, and within that as many items as fit kTileScoreValues (at least
// one). A tile of one item is rows × cols scores.
template <class Real>
int64_t items_per_tile(const Problem<Real>& p, int64_t batch, int64_t per_item, int threads) {
    const int64_t tasks_wanted = 2 * static_cast<int64_t>(threads);
    const int64_t runs = std::clamp<int64_t>((tasks_wanted + per_item - 1) / per_item, 1, batch);
    const int64_t scores_per_item = std::min(p.query_tile, p.T) * std::min(p.key_tile, p.S);
    return std::clamp<int64_t>(kTileScoreValues / scores_per_item, 1, (batch + runs - 1) / runs);
}

}  // namespace

// Work is split over (query tile, run of batch items, head): each writes its own rows of O and L.
// Under a causal mask a later query tile sees more keys, so the tasks are handed out last query
// tile first: the ones left for the end, when threads run out of work, are the small ones.
template <class Real>
void forward(const Problem<Real>& p, int64_t batch, const HeadLayout<Real*>& O, Real* L) {
    const int64_t query_tiles = ceil_div(p.T, p.query_tile);
    const bool worth_threads = !p.reference && batch * p.H * p.T * p.S * p.D > kernels::kParallelMultiplyAdds;
    const int threads = worth_threads ? kernels::num_threads() : 1;
    const int64_t items = items_per_tile(p, batch, p.H * query_tiles, threads), runs = ceil_div(batch, items);
#pragma omp parallel num_threads(threads) if (worth_threads)
    {
        Scratch<Real> scratch(p, items);
#pragma omp for collapse(3) schedule(dynamic)
        for (int64_t tile = query_tiles - 1; tile >= 0; --tile)
            for (int64_t run = 0; run < runs; ++run)
                for (int64_t h = 0; h < p.H; ++h) {
                    const int64_t b0 = run * items;
                    forward_query_tile(p, b0, std::min(items, batch - b0), h, tile * p.query_tile, O, L, scratch);
                }
    }
}

namespace {

// Zeroes rows [i0, i0 + rows) of head h, for `items` batch items from b0, of a gradient the tiles
// then add into. Each task clears exactly the rows it owns, so the gradient tensors need no
// zeroing pass of their own beforehand (a serial memset of 3 MiB per layer for a qkv gradient),
// and every row is first touched by the thread that sums into it.
template <class Real>
void zero_rows(const HeadLayout<Real*>& x, int64_t b0, int64_t items, int64_t h, int64_t i0, int64_t rows, int64_t D) {
    for (int64_t n = 0; n < items; ++n)
        for (int64_t i = i0; i < i0 + rows; ++i) std::fill_n(x.row(b0 + n, h, i), D, Real(0));
}

// Work is split over (run of batch items, key/value head): the query heads that share one
// key/value head run on one thread, one after another, key tiles outside and query tiles inside
// (FlashAttention-2's order), so each dK and dV is written by one thread only (no races), and each
// query head's dQ by the thread that owns its key/value head.
template <class Real>
void backward_by_heads(const Problem<Real>& p, const Backward<Real>& g, int64_t batch, int threads, int64_t items) {
    const int64_t kv_heads = p.H / p.group, runs = ceil_div(batch, items), owners = runs * kv_heads;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        Scratch<Real> scratch(p, items);
        std::vector<Real> delta(items * p.T);   // (items, T) Δ of the current query head
#pragma omp for schedule(dynamic)
        for (int64_t owner = 0; owner < owners; ++owner) {
            const int64_t b0 = (owner / kv_heads) * items, kv_head = owner % kv_heads, run_items = std::min(items, batch - b0);
            zero_rows(g.dK, b0, run_items, kv_head, 0, p.S, p.D);
            zero_rows(g.dV, b0, run_items, kv_head, 0, p.S, p.D);
            for (int64_t h = kv_head * p.group; h < (kv_head + 1) * p.group; ++h) {   // the h with key_value_head(p, h) = kv_head
                zero_rows(g.dQ, b0, run_items, h, 0, p.T, p.D);
                row_deltas(p, g, b0, run_items, h, delta.data());
                for (int64_t j0 = 0; j0 < p.S; j0 += p.key_tile) backward_key_tile(p, g, b0, run_items, h, j0, delta.data(), scratch);
            }
        }
    }
}

// With fewer (batch item, key/value head) owners than threads, the key tiles are shared out
// instead: a (batch item, key/value head, key tile) task writes its own rows of dK and dV, but
// every key tile adds into the same dQ rows, so each thread sums dQ in a buffer of its own
// (B, H, T, D), added up at the end. Memory stays O(T): one dQ per thread.
template <class Real>
void backward_by_key_tiles(const Problem<Real>& p, const Backward<Real>& g, int64_t batch, int threads) {
    const int64_t kv_heads = p.H / p.group, key_tiles = ceil_div(p.S, p.key_tile), tasks = batch * kv_heads * key_tiles;
    const int64_t dQ_size = batch * p.H * p.T * p.D;
    std::vector<Real> deltas(batch * p.H * p.T);                      // (B, H, T)
    std::vector<Real> dQ_of_thread(static_cast<std::size_t>(threads) * dQ_size, Real(0));   // (threads, B, H, T, D)
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (int64_t bh = 0; bh < batch * p.H; ++bh) row_deltas(p, g, bh / p.H, 1, bh % p.H, deltas.data() + bh * p.T);
        Scratch<Real> scratch(p, 1);
        Backward<Real> mine = g;   // the same, but dQ summed in this thread's buffer
        mine.dQ = {dQ_of_thread.data() + omp_get_thread_num() * dQ_size, p.H * p.T * p.D, p.T * p.D, p.D};
#pragma omp for schedule(dynamic)
        for (int64_t task = 0; task < tasks; ++task) {
            const int64_t owner = task / key_tiles, j0 = (task % key_tiles) * p.key_tile;
            const int64_t b = owner / kv_heads, kv_head = owner % kv_heads;
            zero_rows(g.dK, b, 1, kv_head, j0, std::min(p.key_tile, p.S - j0), p.D);
            zero_rows(g.dV, b, 1, kv_head, j0, std::min(p.key_tile, p.S - j0), p.D);
            for (int64_t h = kv_head * p.group; h < (kv_head + 1) * p.group; ++h)   // the h with key_value_head(p, h) = kv_head
                backward_key_tile(p, mine, b, 1, h, j0, deltas.data() + (b * p.H + h) * p.T, scratch);
        }
        // dQ = Σ_threads dQ_thread, each row by one thread
#pragma omp for schedule(static)
        for (int64_t row = 0; row < batch * p.H * p.T; ++row) {
            const int64_t bh = row / p.T;
            Real* dQ_r = g.dQ.row(bh / p.H, bh % p.H, row % p.T);
            std::fill_n(dQ_r, p.D, Real(0));
            for (int thread = 0; thread < threads; ++thread) {
                const Real* part = dQ_of_thread.data() + thread * dQ_size + row * p.D;
#pragma omp simd
                for (int64_t d = 0; d < p.D; ++d) dQ_r[d] += part[d];
            }
        }
    }
}

}  // namespace

// By key tiles when there are fewer (batch item, key/value head) owners than threads and more than
// one key tile to share out, else by heads.
template <class Real>
void backward(const Problem<Real>& p, const Backward<Real>& g, int64_t batch) {
    const int64_t kv_heads = p.H / p.group;
    const bool worth_threads = !p.reference && batch * p.H * p.T * p.S * p.D > kernels::kParallelMultiplyAdds;
    const int threads = worth_threads ? kernels::num_threads() : 1;
    if (threads > 1 && batch * kv_heads < threads && p.S > p.key_tile) {
        backward_by_key_tiles(p, g, batch, threads);
        return;
    }
    backward_by_heads(p, g, batch, threads, items_per_tile(p, batch, kv_heads, threads));
}

template void forward(const Problem<float>&, int64_t, const HeadLayout<float*>&, float*);
template void forward(const Problem<double>&, int64_t, const HeadLayout<double*>&, double*);
template void backward(const Problem<float>&, const Backward<float>&, int64_t);
template void backward(const Problem<double>&, const Backward<double>&, int64_t);

}  // namespace tf::tiled
