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

namespace tf {

namespace {

// Copies rows [0, count) of each (b, g) block of `from` (…, from_rows, D) into rows
// [at, at + count) of `to` (…, to_rows, D); both contiguous with B·H_kv blocks.
void copy_rows(const Tensor& from, int64_t from_start, Tensor& to, int64_t at, int64_t count) {
    const int64_t blocks = from.size(0) * from.size(1), D = from.size(3);
    const int64_t from_rows = from.size(2), to_rows = to.size(2);
    const std::size_t element = dtype_size(from.dtype()), bytes = static_cast<std::size_t>(count * D) * element;
    const auto* source = static_cast<const std::byte*>(from.raw_data());
    auto* target = static_cast<std::byte*>(to.raw_data());
    for (int64_t block = 0; block < blocks; ++block)
        std::memmove(target + ((block * to_rows + at) * D) * element, source + ((block * from_rows + from_start) * D) * element,
                     bytes);
}

// (B, H_kv, capacity, D) buffers with room for `needed` positions, the held ones copied over.
void reserve(KeyValueCache& cache, const Tensor& like, int64_t needed) {
    if (cache.keys.defined() && cache.keys.size(2) >= needed) return;
    const int64_t capacity = std::max<int64_t>(needed, cache.keys.defined() ? 2 * cache.keys.size(2) : 16);
    const Shape shape{like.size(0), like.size(1), capacity, like.size(3)};
    Tensor keys(shape, like.dtype()), values(shape, like.dtype());
    if (cache.length > 0) copy_rows(cache.keys, 0, keys, 0, cache.length), copy_rows(cache.values, 0, values, 0, cache.length);
    cache.keys = keys, cache.values = values;
}

Tensor filled(const Tensor& buffer, int64_t length) {
    if (!buffer.defined() || length == 0) throw ValueError("key/value cache: no positions held yet");
    return buffer.size(2) == length ? buffer : slice(buffer, 2, 0, length);
}

// One (batch, head) pair per task, each query through the framework's own kernels:
//   s = q_i·K_visibleᵀ / τ (gemm),  p = softmax(s) (softmax_rows),  out_i = p·V_visible (gemm).
// Long caches share the pairs among the threads (their keys and values are streamed from memory,
// which two cores read faster than one).
template <typename T>
void attend(const T* q, const T* k, const T* v, T* out, const Shape& q_shape, int64_t kv_heads, int64_t capacity,
            int64_t length, double tau) {
    const int64_t B = q_shape[0], H = q_shape[1], t = q_shape[2], D = q_shape[3];
    const bool parallel = B * H > 1 && B * H * t * length * D > 4 * kernels::kParallelGrain;
    kernels::parallel_for(B * H, parallel, [&](int64_t pair) {
        const int64_t b = pair / H, h = pair % H, g = h * kv_heads / H;
        const T* k_bg = k + (b * kv_heads + g) * capacity * D;
        const T* v_bg = v + (b * kv_heads + g) * capacity * D;
        thread_local std::vector<T> weights;  // the scores, then the weights: one buffer per thread, reused
        weights.resize(static_cast<std::size_t>(length));
        for (int64_t i = 0; i < t; ++i) {
            const int64_t visible = i + length - t + 1;  // keys j ≤ i + length − t
            T* w = weights.data();
            kernels::gemm(q + (pair * t + i) * D, k_bg, w, {.M = 1, .N = visible, .K = D, .trans_b = true});
            for (int64_t j = 0; j < visible; ++j) w[j] /= static_cast<T>(tau);
            kernels::softmax_rows(w, w, 1, visible);
            kernels::gemm(w, v_bg, out + (pair * t + i) * D, {.M = 1, .N = D, .K = visible});
        }
    });
}

}  // namespace

void append_to_cache(KeyValueCache& cache, const Tensor& K_new, const Tensor& V_new) {
    reserve(cache, K_new, cache.length + K_new.size(2));
    copy_rows(K_new, 0, cache.keys, cache.length, K_new.size(2));
    copy_rows(V_new, 0, cache.values, cache.length, V_new.size(2));
    cache.length += K_new.size(2);
}

void keep_last_positions(KeyValueCache& cache, int64_t positions) {
    if (cache.length <= positions) return;
    copy_rows(cache.keys, cache.length - positions, cache.keys, 0, positions);
    copy_rows(cache.values, cache.length - positions, cache.values, 0, positions);
    cache.length = positions;
}

Tensor filled_keys(const KeyValueCache& cache) { return filled(cache.keys, cache.length); }
Tensor filled_values(const KeyValueCache& cache) { return filled(cache.values, cache.length); }

Tensor attend_to_cache(const Tensor& Q, const KeyValueCache& cache, double tau) {
    if (Q.dim() != 4 || !cache.keys.defined() || Q.size(0) != cache.keys.size(0) || Q.size(3) != cache.keys.size(3) ||
        Q.size(2) > cache.length || Q.dtype() != cache.keys.dtype())
        throw ShapeError("attend_to_cache: expected Q (B, H, t ≤ " + std::to_string(cache.length) + ", D) matching the cache, got " +
                         to_string(Q.shape()));
    Tensor out(Q.shape(), Q.dtype());
    const int64_t kv_heads = cache.keys.size(1), capacity = cache.keys.size(2);
    if (Q.dtype() == DType::f32)
        attend(Q.data<float>(), cache.keys.data<float>(), cache.values.data<float>(), out.data<float>(), Q.shape(), kv_heads,
               capacity, cache.length, tau);
    else
        attend(Q.data<double>(), cache.keys.data<double>(), cache.values.data<double>(), out.data<double>(), Q.shape(), kv_heads,
               capacity, cache.length, tau);
    return out;
}

}  // namespace tf
