// Batched GEMM: the reference triple loop, an f64 row-parallel loop, and the f32 oneDNN path
// (one cached matmul primitive per shape; transposes and broadcast are strides, never copies).
#include "autograd/kernels/gemm.h"

#include <omp.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <exception>

#include "autograd/error.h"
#include "autograd/kernels/bfloat16.h"
#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/onednn.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace tf::kernels {
namespace {

std::atomic<int64_t> g_gemm_flops{0};

// Relaxed: a counter read after the work, never used to order memory.
void count_flops(const GemmShape& s) {
    g_gemm_flops.fetch_add(2 * s.batch * s.M * s.N * s.K, std::memory_order_relaxed);
}

std::atomic<int64_t> g_timed_flops{0};
std::atomic<int64_t> g_timed_nanoseconds{0};

// Adds a product's wall time and FLOPs to the timed counts, unless it runs inside a parallel region.
class ProductClock {
public:
    explicit ProductClock(const GemmShape& s)
        : flops_(2 * s.batch * s.M * s.N * s.K), timed_(!omp_in_parallel()), start_(std::chrono::steady_clock::now()) {}
    ~ProductClock() {
        if (!timed_) return;
        const auto elapsed = std::chrono::steady_clock::now() - start_;
        g_timed_nanoseconds.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count(),
                                      std::memory_order_relaxed);
        g_timed_flops.fetch_add(flops_, std::memory_order_relaxed);
    }
    ProductClock(const ProductClock&) = delete;
    ProductClock& operator=(const ProductClock&) = delete;

private:
    int64_t flops_;
    bool timed_;
    std::chrono::steady_clock::time_point start_;
};

// "matmul: batch 128 of op(A) 64x32 · op(B)ᵀ 32x64 (batch strides a=2048 b=2048 c=4096)"
std::string describe(const GemmShape& s) {
    return "matmul: batch " + std::to_string(s.batch) + " of op(A)" + (s.trans_a ? "ᵀ " : " ") +
           std::to_string(s.M) + "x" + std::to_string(s.K) + " · op(B)" + (s.trans_b ? "ᵀ " : " ") +
           std::to_string(s.K) + "x" + std::to_string(s.N) + " (batch strides a=" +
           std::to_string(s.batch_stride_a) + " b=" + std::to_string(s.batch_stride_b) +
           " c=" + std::to_string(s.batch_stride_c) + (s.accumulate ? ", accumulate" : "") +
           (s.lda || s.ldb || s.ldc ? ", row strides a=" + std::to_string(s.lda) + " b=" + std::to_string(s.ldb) +
                                          " c=" + std::to_string(s.ldc) : "") + ")";
}

void check_shape(const GemmShape& s) {
    if (s.batch < 0 || s.M < 0 || s.N < 0 || s.K < 0)
        throw ShapeError(describe(s) + ": sizes must be >= 0");
    if (s.batch_stride_a < 0 || s.batch_stride_b < 0 || s.batch_stride_c < 0)
        throw ShapeError(describe(s) + ": batch strides must be >= 0");
    if (s.batch > 1 && s.batch_stride_c == 0)
        throw ShapeError(describe(s) + ": every batch needs its own C (batch_stride_c is 0)");
    const GemmShape packed{.M = s.M, .N = s.N, .K = s.K, .trans_a = s.trans_a, .trans_b = s.trans_b};
    if (s.lda < 0 || s.ldb < 0 || s.ldc < 0 || (s.lda && s.lda < row_stride_a(packed)) ||
        (s.ldb && s.ldb < row_stride_b(packed)) || (s.ldc && s.ldc < row_stride_c(packed)))
        throw ShapeError(describe(s) + ": a row stride is shorter than its row");
}

// Shapes with no multiply-adds: nothing to write (empty C), or C = 0 (K == 0, nothing summed).
// Returns true when it handled the call.
template <typename T>
bool handle_empty(T* C, const GemmShape& s) {
    if (s.batch == 0 || s.M == 0 || s.N == 0) return true;
    if (s.K != 0) return false;
    if (!s.accumulate)
        for (int64_t b = 0; b < s.batch; ++b)
            for (int64_t i = 0; i < s.M; ++i) std::fill_n(C + b * s.batch_stride_c + i * row_stride_c(s), s.N, T(0));
    return true;
}

// C_b[i][j] = Σ_k op(A_b)[i][k] · op(B_b)[k][j]      op(A_b): M×K   op(B_b): K×N   C_b: M×N
template <typename T>
void reference_loop(const T* A, const T* B, T* C, const GemmShape& s) {
    check_shape(s);
    const int64_t lda = row_stride_a(s), ldb = row_stride_b(s), ldc = row_stride_c(s);
    for (int64_t b = 0; b < s.batch; ++b) {
        const T* A_b = A + b * s.batch_stride_a;
        const T* B_b = B + b * s.batch_stride_b;
        T* C_b = C + b * s.batch_stride_c;
        for (int64_t i = 0; i < s.M; ++i)
            for (int64_t j = 0; j < s.N; ++j) {
                T sum = 0;
                for (int64_t k = 0; k < s.K; ++k) {
                    const T a_ik = s.trans_a ? A_b[k * lda + i] : A_b[i * lda + k];
                    const T b_kj = s.trans_b ? B_b[j * ldb + k] : B_b[k * ldb + j];
                    sum += a_ik * b_kj;
                }
                C_b[i * ldc + j] = s.accumulate ? C_b[i * ldc + j] + sum : sum;
            }
    }
}

// Same sum, arranged for the cache: row i of op(A) as a contiguous a_row (K; copied only when A is
// transposed), then either
//   c_i += Σ_k a_row[k] · B_b[k, :]        (B not transposed: whole rows of B, contiguous, four at a time)
//   c_i[j] += a_row · B_b[j, :]            (B stored N×K: row j of B is column j of op(B)), four
//                                          columns at a time so each a_row[k] is loaded once for four
// Rows (b, i) are independent, so threads may split them.
enum class RowThreads { shared_when_worth_it, this_thread_only };

template <typename T>
void dot_rows_of_B(const T* a_row, const T* B_b, T* c_i, int64_t N, int64_t K, int64_t ldb) {
    int64_t j = 0;
    for (; j + 4 <= N; j += 4) {
        const T *b0 = B_b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
        T d0 = 0, d1 = 0, d2 = 0, d3 = 0;
#pragma omp simd reduction(+ : d0, d1, d2, d3)   // lets the compiler reorder the sums into vector lanes
        for (int64_t k = 0; k < K; ++k) {
            d0 += a_row[k] * b0[k], d1 += a_row[k] * b1[k];
            d2 += a_row[k] * b2[k], d3 += a_row[k] * b3[k];
        }
        c_i[j] += d0, c_i[j + 1] += d1, c_i[j + 2] += d2, c_i[j + 3] += d3;
    }
    for (; j < N; ++j) {
        T dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t k = 0; k < K; ++k) dot += a_row[k] * B_b[j * ldb + k];
        c_i[j] += dot;
    }
}

// c_i += Σ_k a_row[k] · B_b[k, :], four rows of B per pass over c_i (one load and store of c_i
// for four multiply-adds, not one).
template <typename T>
void add_rows_of_B(const T* a_row, const T* B_b, T* c_i, int64_t N, int64_t K, int64_t ldb) {
    int64_t k = 0;
    for (; k + 4 <= K; k += 4) {
        const T *b0 = B_b + k * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
#pragma omp simd
        for (int64_t j = 0; j < N; ++j) c_i[j] += a_row[k] * b0[j] + a_row[k + 1] * b1[j] + a_row[k + 2] * b2[j] + a_row[k + 3] * b3[j];
    }
    for (; k < K; ++k)
#pragma omp simd
        for (int64_t j = 0; j < N; ++j) c_i[j] += a_row[k] * B_b[k * ldb + j];
}

#if defined(__AVX512F__)
// The same dot products for f32 with the AVX-512 registers written out, where the build targets
// them. GCC turns the `omp simd` reduction above into 16 serial scalar adds per sum, which for a
// decoding step's K = 128 cost more than the multiply-adds themselves. d_c holds 16 partial sums
// of column j + c; _mm512_reduce_add_ps adds them.
template <>
void dot_rows_of_B<float>(const float* a_row, const float* B_b, float* c_i, int64_t N, int64_t K, int64_t ldb) {
    int64_t j = 0;
    for (; j + 4 <= N; j += 4) {
        const float *b0 = B_b + j * ldb, *b1 = b0 + ldb, *b2 = b1 + ldb, *b3 = b2 + ldb;
        __m512 d0 = _mm512_setzero_ps(), d1 = d0, d2 = d0, d3 = d0;
        int64_t k = 0;
        for (; k + 16 <= K; k += 16) {
            const __m512 a = _mm512_loadu_ps(a_row + k);
            d0 = _mm512_fmadd_ps(a, _mm512_loadu_ps(b0 + k), d0);
            d1 = _mm512_fmadd_ps(a, _mm512_loadu_ps(b1 + k), d1);
            d2 = _mm512_fmadd_ps(a, _mm512_loadu_ps(b2 + k), d2);
            d3 = _mm512_fmadd_ps(a, _mm512_loadu_ps(b3 + k), d3);
        }
        float s0 = _mm512_reduce_add_ps(d0), s1 = _mm512_reduce_add_ps(d1);
        float s2 = _mm512_reduce_add_ps(d2), s3 = _mm512_reduce_add_ps(d3);
        for (; k < K; ++k) s0 += a_row[k] * b0[k], s1 += a_row[k] * b1[k], s2 += a_row[k] * b2[k], s3 += a_row[k] * b3[k];
        c_i[j] += s0, c_i[j + 1] += s1, c_i[j + 2] += s2, c_i[j + 3] += s3;
    }
    for (; j < N; ++j) {
        float dot = 0;
        for (int64_t k = 0; k < K; ++k) dot += a_row[k] * B_b[j * ldb + k];
        c_i[j] += dot;
    }
}
#endif

template <typename T>
void row_loop(const T* A, const T* B, T* C, const GemmShape& s, RowThreads threads) {
    check_shape(s);
    if (handle_empty(C, s)) return;
    const int64_t lda = row_stride_a(s), ldb = row_stride_b(s), ldc = row_stride_c(s);
    // Row i of C_b; `transposed_row` (K) holds row i of op(A_b) when A is stored K×M.
    const auto compute_row = [&](std::vector<T>& transposed_row, int64_t b, int64_t i) {
        const T* A_b = A + b * s.batch_stride_a;
        const T* B_b = B + b * s.batch_stride_b;
        T* c_i = C + b * s.batch_stride_c + i * ldc;   // (N) row i of C_b
        const T* a_row = A_b + i * lda;
        if (s.trans_a) {
            for (int64_t k = 0; k < s.K; ++k) transposed_row[k] = A_b[k * lda + i];
            a_row = transposed_row.data();
        }
        if (!s.accumulate) std::fill_n(c_i, s.N, T(0));
        if (s.trans_b) {
            dot_rows_of_B(a_row, B_b, c_i, s.N, s.K, ldb);
        } else {
            add_rows_of_B(a_row, B_b, c_i, s.N, s.K, ldb);
        }
    };
    const bool worth_threads = threads == RowThreads::shared_when_worth_it && s.batch * s.M * s.N * s.K > 32 * 1024;
    if (!worth_threads) {  // no OpenMP region at all: a decoding step's products are this small
        std::vector<T> transposed_row(s.trans_a ? s.K : 0);
        for (int64_t b = 0; b < s.batch; ++b)
            for (int64_t i = 0; i < s.M; ++i) compute_row(transposed_row, b, i);
        return;
    }
#pragma omp parallel
    {
        std::vector<T> transposed_row(s.trans_a ? s.K : 0);
#pragma omp for collapse(2) schedule(static)
        for (int64_t b = 0; b < s.batch; ++b)
            for (int64_t i = 0; i < s.M; ++i) compute_row(transposed_row, b, i);
    }
}

// ── oneDNN ──────────────────────────────────────────────────────────────
using dnnl::memory;

// Everything that changes the primitive. Actual batch strides (not just "is broadcast") so a
// strided view with padding between batches also gets a correct primitive.
struct MatmulKey {
    int64_t batch, M, N, K;
    bool trans_a, trans_b;
    int64_t batch_stride_a, batch_stride_b, batch_stride_c;
    bool accumulate;
    int64_t lda, ldb, ldc;
    bool bias;
    GemmActivation activation;
    int threads;  // oneDNN fixes a primitive's thread count when it is created
    MatmulPrecision precision;  // the operands' type: f32, or bf16 (C is f32 in both)
    auto operator<=>(const MatmulKey&) const = default;
};

struct CachedMatmul {
    dnnl::matmul primitive;
    memory::desc a_desc, b_desc, c_desc, bias_desc, scratchpad_desc;
};

dnnl::engine& cpu_engine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

// A logical rows×cols operand, stored row-major (or, if transposed, stored cols×rows), its stored
// rows `row_stride` apart. batch_stride 0 → batch dim 1, which matmul broadcasts; batch 1 → a
// plain 2-D matrix.
memory::desc operand_desc(int64_t batch, int64_t batch_stride, int64_t rows, int64_t cols, bool transposed,
                          int64_t row_stride, memory::data_type type = memory::data_type::f32) {
    const memory::dims matrix_strides = transposed ? memory::dims{1, row_stride} : memory::dims{row_stride, 1};
    if (batch == 1) return memory::desc({rows, cols}, type, matrix_strides);
    const int64_t stored_batch = batch_stride == 0 ? 1 : batch;
    const int64_t step = batch_stride == 0 ? (transposed ? cols : rows) * row_stride : batch_stride;
    return memory::desc({stored_batch, rows, cols}, type, {step, matrix_strides[0], matrix_strides[1]});
}

CachedMatmul create_matmul(const GemmShape& s, const MatmulKey& key) {
    const MatmulPrecision precision = key.precision;
    const memory::data_type operand_type = precision == MatmulPrecision::bf16 ? memory::data_type::bf16 : memory::data_type::f32;
    CachedMatmul cached;
    cached.a_desc = operand_desc(s.batch, s.batch_stride_a, s.M, s.K, s.trans_a, row_stride_a(s), operand_type);
    cached.b_desc = operand_desc(s.batch, s.batch_stride_b, s.K, s.N, s.trans_b, row_stride_b(s), operand_type);
    cached.c_desc = operand_desc(s.batch, s.batch_stride_c, s.M, s.N, false, row_stride_c(s));
    dnnl::primitive_attr attr;
    // user scratchpad: the library's shared one forbids running a primitive on another thread
    // than the one that created it, and our cache is shared by all threads.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops post_ops;
    if (s.accumulate) post_ops.append_sum(1.0f);   // C = 1·C + op(A)·op(B)
    if (key.activation == GemmActivation::relu) onednn::append_relu(post_ops);
    attr.set_post_ops(post_ops);
    if (key.bias) cached.bias_desc = memory::desc({1, s.N}, memory::data_type::f32, {s.N, 1});   // (1, N): every row
    const dnnl::matmul::primitive_desc pd =
        key.bias ? onednn::matmul_primitive_desc(cpu_engine(), cached.a_desc, cached.b_desc, cached.bias_desc, cached.c_desc, attr)
                 : onednn::matmul_primitive_desc(cpu_engine(), cached.a_desc, cached.b_desc, cached.c_desc, attr);
    cached.primitive = dnnl::matmul(pd);
    cached.scratchpad_desc = pd.scratchpad_desc();
    return cached;
}

// What a primitive is made for: the shape, the precision, and the threads it may use (one inside
// a parallel region).
MatmulKey key_of(const GemmShape& s, MatmulPrecision precision, const GemmEpilogue& epilogue) {
    auto key_stride = [&](int64_t stride) { return s.batch == 1 ? 0 : stride; };   // unused when batch is 1
    return MatmulKey{s.batch, s.M, s.N, s.K, s.trans_a, s.trans_b, key_stride(s.batch_stride_a),
                     key_stride(s.batch_stride_b), key_stride(s.batch_stride_c), s.accumulate,
                     row_stride_a(s), row_stride_b(s), row_stride_c(s), epilogue.bias != nullptr, epilogue.activation,
                     omp_in_parallel() ? 1 : omp_get_max_threads(), precision};
}

// Built once per shape, under a lock; later calls share it.
const CachedMatmul& cached_matmul(const MatmulKey& key, const GemmShape& s) {
    static std::mutex mutex;
    static std::map<MatmulKey, CachedMatmul> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto found = cache.find(key);
    if (found == cache.end()) found = cache.emplace(key, create_matmul(s, key)).first;
    return found->second;   // std::map never moves its nodes, so the reference stays valid
}

// A shared primitive with this thread's memory objects for it: a call only points them at its
// buffers (creating four oneDNN memory objects is a fixed cost no smaller than a small tile's
// product, and attention's tiles make thousands of such calls). The argument map that
// execute() reads is built once too: its entries are handles to the same memory objects.
struct BoundMatmul {
    const CachedMatmul* matmul;
    memory a, b, c, bias, scratchpad;
    std::unordered_map<int, memory> arguments;
};

BoundMatmul& bound_matmul(const GemmShape& s, MatmulPrecision precision, const GemmEpilogue& epilogue) {
    thread_local std::map<MatmulKey, BoundMatmul> bound;
    const MatmulKey key = key_of(s, precision, epilogue);
    auto found = bound.find(key);
    if (found == bound.end()) {
        const CachedMatmul& matmul = cached_matmul(key, s);
        BoundMatmul fresh{&matmul, memory(matmul.a_desc, cpu_engine(), nullptr), memory(matmul.b_desc, cpu_engine(), nullptr),
                          memory(matmul.c_desc, cpu_engine(), nullptr), memory(matmul.bias_desc, cpu_engine(), nullptr),
                          memory(matmul.scratchpad_desc, cpu_engine(), nullptr), {}};
        fresh.arguments = {{DNNL_ARG_SRC, fresh.a}, {DNNL_ARG_WEIGHTS, fresh.b}, {DNNL_ARG_DST, fresh.c},
                           {DNNL_ARG_SCRATCHPAD, fresh.scratchpad}};
        if (key.bias) fresh.arguments.emplace(DNNL_ARG_BIAS, fresh.bias);
        found = bound.emplace(key, std::move(fresh)).first;
    }
    return found->second;
}

// C = act(op(A)·op(B) + bias) by the cached primitive, A and B already in its operand type (f32 or bf16).
void execute_matmul(const void* A, const void* B, float* C, const GemmShape& s, MatmulPrecision precision,
                    const GemmEpilogue& epilogue) {
    try {
        BoundMatmul& bound = bound_matmul(s, precision, epilogue);
        thread_local dnnl::stream stream(cpu_engine());
        thread_local std::vector<std::byte> scratchpad_bytes;
        scratchpad_bytes.resize(std::max<size_t>(scratchpad_bytes.size(), bound.matmul->scratchpad_desc.get_size()));
        // oneDNN takes non-const handles; it only reads A and B.
        bound.a.set_data_handle(const_cast<void*>(A));
        bound.b.set_data_handle(const_cast<void*>(B));
        bound.c.set_data_handle(C);
        bound.scratchpad.set_data_handle(scratchpad_bytes.data());
        if (epilogue.bias) bound.bias.set_data_handle(const_cast<float*>(epilogue.bias));
        bound.matmul->primitive.execute(stream, bound.arguments);
        stream.wait();
    } catch (const dnnl::error& e) {
        throw ShapeError(describe(s) + ": oneDNN refused it: " + e.what());
    }
}

// Where an operand's stored matrices lie: `matrices` of them (1 when shared by the whole batch),
// `batch_stride` apart, each `rows` stored rows of `cols` values, `row_stride` apart.
struct StoredOperand {
    int64_t matrices, batch_stride, rows, cols, row_stride;
    int64_t packed_size() const { return matrices * rows * cols; }
};
StoredOperand stored_a(const GemmShape& s) {
    return {s.batch_stride_a == 0 ? 1 : s.batch, s.batch_stride_a, s.trans_a ? s.K : s.M, s.trans_a ? s.M : s.K, row_stride_a(s)};
}
StoredOperand stored_b(const GemmShape& s) {
    return {s.batch_stride_b == 0 ? 1 : s.batch, s.batch_stride_b, s.trans_b ? s.N : s.K, s.trans_b ? s.K : s.N, row_stride_b(s)};
}

// The operand's rows, each through `convert_row(row, out, cols)` (rounding to bf16, or back to
// f32), into this thread's buffer `slot` (0 for A, 1 for B), packed: rows back to back, matrices
// back to back (a strided operand leaves its gaps behind).
template <class Out, class In, class ConvertRow>
const Out* packed_rows(const In* X, const StoredOperand& x, int slot, ConvertRow convert_row) {
    thread_local std::vector<Out> buffers[2];
    std::vector<Out>& buffer = buffers[slot];
    if (static_cast<int64_t>(buffer.size()) < x.packed_size()) buffer.resize(x.packed_size());
    Out* out = buffer.data();
    for (int64_t m = 0; m < x.matrices; ++m)
        for (int64_t r = 0; r < x.rows; ++r, out += x.cols) convert_row(X + m * x.batch_stride + r * x.row_stride, out, x.cols);
    return buffer.data();
}

// The shape of the same product on packed operands (C keeps its layout).
GemmShape with_packed_operands(GemmShape s) {
    s.batch_stride_a = s.batch_stride_a == 0 ? 0 : s.M * s.K;
    s.batch_stride_b = s.batch_stride_b == 0 ? 0 : s.K * s.N;
    s.lda = s.ldb = 0;
    return s;
}

// The operand rounded to bf16, packed (round_to_bfloat16: the CPU's own conversion where it has one).
const bfloat16_bits* rounded_operand(const float* X, const StoredOperand& x, int slot) {
    return packed_rows<bfloat16_bits>(X, x, slot, round_to_bfloat16);
}

// The same rounding widened back to f32, for the row loop: a product of two bf16 values is exact
// in f32, so the loop then computes what a bf16 matmul does (bf16 products, f32 sums).
const float* rounded_operand_as_f32(const float* X, const StoredOperand& x, int slot) {
    return packed_rows<float>(X, x, slot, [](const float* row, float* out, int64_t n) {
#pragma omp simd
        for (int64_t c = 0; c < n; ++c) out[c] = from_bfloat16(to_bfloat16(row[c]));
    });
}

// An operand already in bf16, widened to f32 and packed, for the row loop.
const float* widened_operand(const bfloat16_bits* X, const StoredOperand& x, int slot) {
    return packed_rows<float>(X, x, slot, [](const bfloat16_bits* row, float* out, int64_t n) {
#pragma omp simd
        for (int64_t c = 0; c < n; ++c) out[c] = from_bfloat16(row[c]);
    });
}

// C = act(op(A)·op(B) + bias) for operands in bf16: on the CPU's bf16 instructions, or emulated as
// an f32 product of the operands widened (kernels/matmul_precision.h, Bf16Products).
void bf16_matmul(const bfloat16_bits* A, const bfloat16_bits* B, float* C, const GemmShape& s, const GemmEpilogue& epilogue) {
    if (bf16_products() == Bf16Products::native) {
        execute_matmul(A, B, C, s, MatmulPrecision::bf16, epilogue);
        return;
    }
    execute_matmul(widened_operand(A, stored_a(s), 0), widened_operand(B, stored_b(s), 1), C, with_packed_operands(s),
                   MatmulPrecision::fp32, epilogue);
}

// C_i ← act(C_i + bias) row by row: the epilogue for the products that do not run in oneDNN.
void apply_epilogue(float* C, const GemmShape& s, const GemmEpilogue& epilogue) {
    for (int64_t i = 0; i < s.M; ++i) {
        float* c_i = C + i * row_stride_c(s);
        if (epilogue.bias)
#pragma omp simd
            for (int64_t j = 0; j < s.N; ++j) c_i[j] += epilogue.bias[j];
        if (epilogue.activation == GemmActivation::relu)
#pragma omp simd
            for (int64_t j = 0; j < s.N; ++j) c_i[j] = c_i[j] > 0 ? c_i[j] : 0.0f;
    }
}

// Whether a stored matrix is a vector whose values lie apart: its unit-stride dimension has length
// 1 and its other dimension a stride other than 1 (a row of Aᵀ read in place from wider rows, say).
// oneDNN matmul needs a unit stride along a real dimension; 3.7 took such a layout and computed
// the wrong product (2.6 got it right), so these products, vectors and cheap, run as the row loop.
bool strided_vector(int64_t rows, int64_t cols, bool transposed, int64_t row_stride) {
    const int64_t unit_stride_length = transposed ? rows : cols, other_length = transposed ? cols : rows;
    return unit_stride_length == 1 && other_length > 1 && row_stride != 1;
}
bool has_strided_vector(const GemmShape& s) {
    return strided_vector(s.M, s.K, s.trans_a, row_stride_a(s)) || strided_vector(s.K, s.N, s.trans_b, row_stride_b(s)) ||
           strided_vector(s.M, s.N, false, row_stride_c(s));
}

// Whether the product has an epilogue, which needs one matrix, not accumulating (else ShapeError).
bool has_checked_epilogue(const GemmShape& s, const GemmEpilogue& epilogue) {
    const bool has_epilogue = epilogue.bias || epilogue.activation != GemmActivation::none;
    if (has_epilogue && (s.batch != 1 || s.accumulate))
        throw ShapeError(describe(s) + ": a bias or activation needs one matrix, not accumulating");
    return has_epilogue;
}

// C = op(A)·op(B) in oneDNN; in bf16, A and B are rounded first (packed) and bf16_matmul
// multiplies bf16 and sums in f32.
void onednn_matmul(const float* A, const float* B, float* C, const GemmShape& s, MatmulPrecision precision,
                   const GemmEpilogue& epilogue = {}) {
    check_shape(s);
    if (handle_empty(C, s)) return;
    if (has_strided_vector(s)) {
        if (precision == MatmulPrecision::fp32) row_loop(A, B, C, s, RowThreads::this_thread_only);
        else row_loop(rounded_operand_as_f32(A, stored_a(s), 0), rounded_operand_as_f32(B, stored_b(s), 1), C,
                      with_packed_operands(s), RowThreads::this_thread_only);
        apply_epilogue(C, s, epilogue);
        return;
    }
    if (precision == MatmulPrecision::fp32) {
        execute_matmul(A, B, C, s, precision, epilogue);
        return;
    }
    bf16_matmul(rounded_operand(A, stored_a(s), 0), rounded_operand(B, stored_b(s), 1), C, with_packed_operands(s), epilogue);
}

}  // namespace

void gemm_reference(const float* A, const float* B, float* C, const GemmShape& s) {
    const ProductClock clock(s);
    count_flops(s);
    reference_loop(A, B, C, s);
}
void gemm_reference(const double* A, const double* B, double* C, const GemmShape& s) {
    const ProductClock clock(s);
    count_flops(s);
    reference_loop(A, B, C, s);
}

void gemm_onednn(const float* A, const float* B, float* C, const GemmShape& s) {
    onednn_matmul(A, B, C, s, MatmulPrecision::fp32);
}

// This thread's OpenMP thread count is 1 while alive (oneDNN then creates and runs a
// single-threaded primitive), restored after.
class OneThreadForScope {
public:
    OneThreadForScope() : threads_(omp_get_max_threads()) { omp_set_num_threads(1); }
    ~OneThreadForScope() { omp_set_num_threads(threads_); }
    OneThreadForScope(const OneThreadForScope&) = delete;
    OneThreadForScope& operator=(const OneThreadForScope&) = delete;

private:
    int threads_;
};

// A batch of small products with a transposed B (attention's per-head Q·Kᵀ) makes oneDNN repack
// each Kᵀ and keeps two threads waiting at its barriers. Handing each thread its own slice of the
// batch, which it runs alone (oneDNN runs single-threaded inside a parallel region), keeps both
// threads multiplying (bench_matmul attn_qkT); without the transpose (A·V) nothing is repacked and
// oneDNN's own threading does better, so those calls go to it whole.
//
// A product too small to share at all (a decoding step's matrix-vector products: one row times a
// 128×512 weight) runs as the row loop on this thread alone: oneDNN would wake the other thread,
// which costs more than the product.
//
// A product too small to be worth waking the other thread for runs in oneDNN on this thread
// alone: below the line, the wake-up costs more than the second thread saves (a GRU step's input
// product in W2 is such a product, and a step makes hundreds of them). bench_threads times one
// f32 product of 32 rows by size after the other thread has slept; bench/README.md says where
// two threads start to win.
constexpr int64_t kTooSmallToShare = 1 << 17;  // batch·M·N·K in all: the row loop, no oneDNN
constexpr int64_t kWorthSharing = 1 << 23;     // batch·M·N·K in all: below it, oneDNN on one thread
void gemm(const float* A, const float* B, float* C, const GemmShape& s) { gemm(A, B, C, s, GemmEpilogue{}); }

void gemm(const float* A, const float* B, float* C, const GemmShape& s, const GemmEpilogue& epilogue) {
    const bool has_epilogue = has_checked_epilogue(s, epilogue);
    const ProductClock clock(s);
    count_flops(s);
    const MatmulPrecision precision = matmul_precision();
    constexpr int64_t kSmallProduct = 1 << 19;  // M·N·K of one matrix, e.g. 64×64×128
    const int64_t product = s.batch * s.M * s.N * s.K;
    if (product < kTooSmallToShare) {
        if (precision == MatmulPrecision::bf16) {
            check_shape(s);
            if (handle_empty(C, s)) return;
            row_loop(rounded_operand_as_f32(A, stored_a(s), 0), rounded_operand_as_f32(B, stored_b(s), 1), C,
                     with_packed_operands(s), RowThreads::this_thread_only);
        } else {
            row_loop(A, B, C, s, RowThreads::this_thread_only);
        }
        if (has_epilogue) apply_epilogue(C, s, epilogue);
        return;
    }
    const int threads = omp_get_max_threads();
    if (product < kWorthSharing && threads > 1 && !omp_in_parallel()) {
        const OneThreadForScope this_thread_only;
        onednn_matmul(A, B, C, s, precision, epilogue);
        return;
    }
    if (threads < 2 || omp_in_parallel() || !s.trans_b || s.batch < 2 * threads || s.M * s.N * s.K > kSmallProduct) {
        onednn_matmul(A, B, C, s, precision, epilogue);
        return;
    }
    std::exception_ptr failure;
#pragma omp parallel num_threads(threads)
    {
        const int64_t thread = omp_get_thread_num();
        const int64_t begin = s.batch * thread / threads, end = s.batch * (thread + 1) / threads;
        GemmShape slice = s;
        slice.batch = end - begin;
        try {
            onednn_matmul(A + begin * s.batch_stride_a, B + begin * s.batch_stride_b, C + begin * s.batch_stride_c, slice, precision);
        } catch (...) {
#pragma omp critical
            failure = std::current_exception();
        }
    }
    if (failure) std::rethrow_exception(failure);
}
void gemm(const bfloat16_bits* A, const bfloat16_bits* B, float* C, const GemmShape& s) { gemm(A, B, C, s, GemmEpilogue{}); }

void gemm(const bfloat16_bits* A, const bfloat16_bits* B, float* C, const GemmShape& s, const GemmEpilogue& epilogue) {
    const bool has_epilogue = has_checked_epilogue(s, epilogue);
    const ProductClock clock(s);
    count_flops(s);
    check_shape(s);
    if (handle_empty(C, s)) return;
    const int64_t product = s.batch * s.M * s.N * s.K;
    if (product < kTooSmallToShare || has_strided_vector(s)) {
        row_loop(widened_operand(A, stored_a(s), 0), widened_operand(B, stored_b(s), 1), C, with_packed_operands(s),
                 RowThreads::this_thread_only);
        if (has_epilogue) apply_epilogue(C, s, epilogue);
        return;
    }
    if (product < kWorthSharing && omp_get_max_threads() > 1 && !omp_in_parallel()) {
        const OneThreadForScope this_thread_only;
        bf16_matmul(A, B, C, s, epilogue);
        return;
    }
    bf16_matmul(A, B, C, s, epilogue);
}

void gemm(const double* A, const double* B, double* C, const GemmShape& s) {
    const ProductClock clock(s);
    count_flops(s);
    row_loop(A, B, C, s, RowThreads::shared_when_worth_it);
}

int64_t gemm_flop_count() { return g_gemm_flops.load(std::memory_order_relaxed); }
void reset_gemm_flop_count() { g_gemm_flops.store(0, std::memory_order_relaxed); }

ProductTime gemm_product_time() {
    return {g_timed_flops.load(std::memory_order_relaxed), 1e-9 * double(g_timed_nanoseconds.load(std::memory_order_relaxed))};
}
void reset_gemm_product_time() {
    g_timed_flops.store(0, std::memory_order_relaxed);
    g_timed_nanoseconds.store(0, std::memory_order_relaxed);
}

}  // namespace tf::kernels
