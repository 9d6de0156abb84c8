// Key/value cache buffers and the fast attention over them.
#include "layers/attention/key_value_cache.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/softmax.h"
#include "autograd/ops.h"
#include "layers/attention/grouped_heads.h"

namespace tf {

namespace {

// Copies elements [from_start, from_start + count) of each of `rows` rows of `from` (rows of
// `from_row_length`) to [at, at + count) of the same row of `to` (rows of `to_row_length`).
// Both buffers hold the B·H_kv blocks one after another: the values' rows are whole blocks
// (capacity·D), the transposed keys' rows are one head dimension's positions (capacity).
void copy_row_segments(const Tensor& from, int64_t from_row_length, int64_t from_start, Tensor& to, int64_t to_row_length,
                       int64_t at, int64_t count, int64_t rows) {
    const std::size_t element = dtype_size(from.dtype()), bytes = static_cast<std::size_t>(count) * element;
    const auto* source = static_cast<const std::byte*>(from.raw_data());
    auto* target = static_cast<std::byte*>(to.raw_data());
    for (int64_t row = 0; row < rows; ++row)
        std::memmove(target + (row * to_row_length + at) * element, source + (row * from_row_length + from_start) * element, bytes);
}

// Positions [from_start, from_start + count) of buffers with `from_capacity` positions to
// [at, at + count) of buffers with `to_capacity` (the same cache, or its grown buffers).
void move_positions(const KeyValueCache& from, int64_t from_capacity, int64_t from_start, KeyValueCache& to, int64_t to_capacity,
                    int64_t at, int64_t count) {
    const int64_t blocks = from.values.size(0) * from.values.size(1), D = from.values.size(3);
    copy_row_segments(from.keys_transposed, from_capacity, from_start, to.keys_transposed, to_capacity, at, count, blocks * D);
    copy_row_segments(from.values, from_capacity * D, from_start * D, to.values, to_capacity * D, at * D, count * D, blocks);
}

// Buffers with room for `needed` positions, the held ones copied over; `like` is (B, H_kv, t, D).
void reserve(KeyValueCache& cache, const Tensor& like, int64_t needed) {
    const int64_t capacity = cache.values.defined() ? cache.values.size(2) : 0;
    if (capacity >= needed) return;
    const int64_t grown = std::max<int64_t>(needed, capacity > 0 ? 2 * capacity : 16);
    const int64_t B = like.size(0), H_kv = like.size(1), D = like.size(3);
    KeyValueCache larger;
    larger.keys_transposed = Tensor({B, H_kv, D, grown}, like.dtype());
    larger.values = Tensor({B, H_kv, grown, D}, like.dtype());
    if (cache.length > 0) move_positions(cache, capacity, 0, larger, grown, 0, cache.length);
    cache.keys_transposed = larger.keys_transposed, cache.values = larger.values;
}

// Kᵀ[b, g, d, at + i] = K_new[b, g, i, d]
template <typename T>
void write_transposed(const T* K_new, T* keys_transposed, int64_t blocks, int64_t t, int64_t D, int64_t capacity, int64_t at) {
    for (int64_t block = 0; block < blocks; ++block)
        for (int64_t i = 0; i < t; ++i)
            for (int64_t d = 0; d < D; ++d)
                keys_transposed[(block * D + d) * capacity + at + i] = K_new[(block * t + i) * D + d];
}

// s_j = Σ_d q[d] · Kᵀ[d, j] for j < visible: four head dimensions per pass over the positions,
// each pass a multiply-add along contiguous j.
template <typename T>
void scores_over_positions(const T* q, const T* keys_transposed, T* s, int64_t D, int64_t capacity, int64_t visible) {
    std::fill_n(s, visible, T(0));
    int64_t d = 0;
    for (; d + 4 <= D; d += 4) {
        const T *k0 = keys_transposed + d * capacity, *k1 = k0 + capacity, *k2 = k1 + capacity, *k3 = k2 + capacity;
#pragma omp simd
        for (int64_t j = 0; j < visible; ++j) s[j] += q[d] * k0[j] + q[d + 1] * k1[j] + q[d + 2] * k2[j] + q[d + 3] * k3[j];
    }
    for (; d < D; ++d) {
        const T* k_d = keys_transposed + d * capacity;
#pragma omp simd
        for (int64_t j = 0; j < visible; ++j) s[j] += q[d] * k_d[j];
    }
}

// One (batch, head) pair per task, query i seeing keys j ≤ i + length − t:
//   s = q_i·K_visibleᵀ / τ,  p = softmax(s) (softmax_rows),  out_i = p·V_visible (gemm).
// Long caches share the pairs among the threads (their keys and values are streamed from memory,
// which two cores read faster than one).
template <typename T>
void attend(const T* q, const T* keys_transposed, const T* values, T* out, const Shape& q_shape, int64_t kv_heads,
            int64_t capacity, int64_t length, double tau) {
    const int64_t B = q_shape[0], H = q_shape[1], t = q_shape[2], D = q_shape[3];
    const bool parallel = B * H > 1 && B * H * t * length * D > kernels::kParallelMultiplyAdds;
    kernels::parallel_for(B * H, parallel, [&](int64_t pair) {
        const int64_t b = pair / H, h = pair % H, g = kv_head_of(h, H, kv_heads);
        const T* kt_bg = keys_transposed + (b * kv_heads + g) * D * capacity;
        const T* v_bg = values + (b * kv_heads + g) * capacity * D;
        thread_local std::vector<T> weights;  // the scores, then the weights: one buffer per thread, reused
        weights.resize(static_cast<std::size_t>(length));
        for (int64_t i = 0; i < t; ++i) {
            const int64_t visible = i + length - t + 1;
            T* w = weights.data();
            scores_over_positions(q + (pair * t + i) * D, kt_bg, w, D, capacity, visible);
            for (int64_t j = 0; j < visible; ++j) w[j] /= static_cast<T>(tau);
            kernels::softmax_rows(w, w, 1, visible);
            kernels::gemm(w, v_bg, out + (pair * t + i) * D, {.M = 1, .N = D, .K = visible});
        }
    });
}

}  // namespace

void append_to_cache(KeyValueCache& cache, const Tensor& K_new, const Tensor& V_new) {
    reserve(cache, K_new, cache.length + K_new.size(2));
    const int64_t blocks = K_new.size(0) * K_new.size(1), t = K_new.size(2), D = K_new.size(3), capacity = cache.values.size(2);
    if (K_new.dtype() == DType::f32)
        write_transposed(K_new.data<float>(), cache.keys_transposed.data<float>(), blocks, t, D, capacity, cache.length);
    else
        write_transposed(K_new.data<double>(), cache.keys_transposed.data<double>(), blocks, t, D, capacity, cache.length);
    copy_row_segments(V_new, t * D, 0, cache.values, capacity * D, cache.length * D, t * D, blocks);
    cache.length += t;
}

void keep_last_positions(KeyValueCache& cache, int64_t positions) {
    if (cache.length <= positions) return;
    const int64_t capacity = cache.values.size(2);
    move_positions(cache, capacity, cache.length - positions, cache, capacity, 0, positions);
    cache.length = positions;
}

Tensor filled_keys(const KeyValueCache& cache) {
    if (cache.length == 0) throw ValueError("key/value cache: no positions held yet");
    return transpose(slice(cache.keys_transposed, 3, 0, cache.length), 2, 3);
}

Tensor filled_values(const KeyValueCache& cache) {
    if (cache.length == 0) throw ValueError("key/value cache: no positions held yet");
    return slice(cache.values, 2, 0, cache.length);
}

Tensor attend_to_cache(const Tensor& Q, const KeyValueCache& cache, double tau) {
    if (Q.dim() != 4 || !cache.values.defined() || Q.size(0) != cache.values.size(0) || Q.size(3) != cache.values.size(3) ||
        Q.size(2) > cache.length || Q.dtype() != cache.values.dtype())
        throw ShapeError("attend_to_cache: expected Q (B, H, t ≤ " + std::to_string(cache.length) + ", D) matching the cache, got " +
                         to_string(Q.shape()));
    Tensor out(Q.shape(), Q.dtype());
    const int64_t kv_heads = cache.values.size(1), capacity = cache.values.size(2);
    if (Q.dtype() == DType::f32)
        attend(Q.data<float>(), cache.keys_transposed.data<float>(), cache.values.data<float>(), out.data<float>(), Q.shape(),
               kv_heads, capacity, cache.length, tau);
    else
        attend(Q.data<double>(), cache.keys_transposed.data<double>(), cache.values.data<double>(), out.data<double>(),
               Q.shape(), kv_heads, capacity, cache.length, tau);
    return out;
}

}  // namespace tf
