// GEMM kernels: the oneDNN f32 path and the f64 loop must equal the reference triple loop on odd
// shapes, every transpose, broadcast batches and accumulate; plus one case worked out by hand.
#include "catch.h"

#include "analysis/theorems/measured.h"
#include "autograd/error.h"

#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using tf::kernels::GemmShape;

namespace {

template <typename T>
std::vector<T> random_values(int64_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<T> values(count);
    for (T& v : values) v = static_cast<T>(uniform(rng));
    return values;
}

// Buffers sized for the shape (a broadcast operand holds one matrix), C pre-filled so that
// accumulate has something to add to. Returns max |fast − reference| / (1 + |reference|).
template <typename T, typename Fast>
double max_relative_error(const GemmShape& s, Fast fast) {
    auto matrices = [&](int64_t stride) { return stride == 0 ? 1 : s.batch; };
    const auto A = random_values<T>(matrices(s.batch_stride_a) * s.M * s.K, 1);
    const auto B = random_values<T>(matrices(s.batch_stride_b) * s.K * s.N, 2);
    auto C_fast = random_values<T>(s.batch * s.M * s.N, 3);
    auto C_reference = C_fast;
    fast(A.data(), B.data(), C_fast.data(), s);
    tf::kernels::gemm_reference(A.data(), B.data(), C_reference.data(), s);
    double worst = 0;
    for (size_t i = 0; i < C_fast.size(); ++i)
        worst = tf::worse_of(worst, std::abs(double(C_fast[i]) - C_reference[i]) / (1 + std::abs(double(C_reference[i]))));
    return worst;
}

GemmShape shape(int64_t batch, int64_t M, int64_t N, int64_t K, bool trans_a, bool trans_b,
                bool broadcast_a, bool broadcast_b, bool accumulate) {
    return {batch, M, N, K, trans_a, trans_b, broadcast_a ? 0 : M * K, broadcast_b ? 0 : K * N, M * N, accumulate};
}

void onednn_f32(const float* A, const float* B, float* C, const GemmShape& s) { tf::kernels::gemm_onednn(A, B, C, s); }
void gemm_f32(const float* A, const float* B, float* C, const GemmShape& s) { tf::kernels::gemm(A, B, C, s); }
void gemm_f64(const double* A, const double* B, double* C, const GemmShape& s) { tf::kernels::gemm(A, B, C, s); }

}  // namespace

TEST_CASE("gemm: 2x2 by hand", "[unit][gemm]") {
    // [1 2] · [5 6]   [1·5+2·7  1·6+2·8]   [19 22]
    // [3 4]   [7 8] = [3·5+4·7  3·6+4·8] = [43 50]
    const float A[] = {1, 2, 3, 4}, B[] = {5, 6, 7, 8};
    float C[4] = {};
    tf::kernels::gemm_onednn(A, B, C, {.M = 2, .N = 2, .K = 2});
    CHECK(std::vector<float>(C, C + 4) == std::vector<float>{19, 22, 43, 50});
    const double Ad[] = {1, 2, 3, 4}, Bd[] = {5, 6, 7, 8};
    double Cd[4] = {};
    tf::kernels::gemm(Ad, Bd, Cd, {.M = 2, .N = 2, .K = 2, .trans_b = true});   // A·Bᵀ
    CHECK(std::vector<double>(Cd, Cd + 4) == std::vector<double>{17, 23, 39, 53});
}

TEST_CASE("gemm: oneDNN f32 equals reference on odd shapes", "[unit][gemm]") {
    const auto [M, N, K] = GENERATE(table<int64_t, int64_t, int64_t>(
        {{1, 1, 1}, {3, 17, 65}, {17, 3, 1}, {65, 65, 17}, {1, 65, 3}}));
    const bool trans_a = GENERATE(false, true), trans_b = GENERATE(false, true);
    const bool accumulate = GENERATE(false, true);
    CAPTURE(M, N, K, trans_a, trans_b, accumulate);
    CHECK(max_relative_error<float>(shape(1, M, N, K, trans_a, trans_b, false, false, accumulate), onednn_f32) <
          1e-5 * K);
    CHECK(max_relative_error<float>(shape(3, M, N, K, trans_a, trans_b, false, false, accumulate), onednn_f32) <
          1e-5 * K);
}

TEST_CASE("gemm: oneDNN f32 broadcasts an operand with batch stride 0", "[unit][gemm]") {
    const bool broadcast_a = GENERATE(false, true), trans_a = GENERATE(false, true), trans_b = GENERATE(false, true);
    const bool broadcast_b = !broadcast_a;
    CAPTURE(broadcast_a, trans_a, trans_b);
    CHECK(max_relative_error<float>(shape(5, 17, 3, 65, trans_a, trans_b, broadcast_a, broadcast_b, false),
                                    onednn_f32) < 1e-5 * 65);
    CHECK(max_relative_error<float>(shape(4, 3, 17, 1, trans_a, trans_b, broadcast_a, broadcast_b, true),
                                    onednn_f32) < 1e-5);
}

TEST_CASE("gemm: f32 entry point equals reference when it splits a transposed-B batch between threads", "[unit][gemm]") {
    // gemm hands each thread a slice of a batch of small A·Bᵀ products; 7 matrices split unevenly.
    const int threads = GENERATE(1, 2, 3);
    const bool broadcast_a = GENERATE(false, true), accumulate = GENERATE(false, true);
    CAPTURE(threads, broadcast_a, accumulate);
    const int previous_threads = tf::kernels::num_threads();
    tf::kernels::set_num_threads(threads);
    const double plain = max_relative_error<float>(shape(7, 17, 9, 33, false, true, broadcast_a, false, accumulate), gemm_f32);
    const double broadcast_b = max_relative_error<float>(shape(7, 9, 17, 5, true, true, false, true, accumulate), gemm_f32);
    tf::kernels::set_num_threads(previous_threads);
    CHECK(plain < 1e-5 * 33);
    CHECK(broadcast_b < 1e-5 * 5);
}

TEST_CASE("gemm: f32 entry point equals reference on the one-row products of a decoding step", "[unit][gemm]") {
    // Small products run on the calling thread: four columns of Bᵀ or four rows of B per pass, and
    // the remainders one at a time (N, K not multiples of 4 or of the vector width).
    const auto [N, K] = GENERATE(table<int64_t, int64_t>({{1, 1}, {5, 7}, {130, 33}, {33, 130}, {128, 128}}));
    const bool trans_b = GENERATE(false, true), accumulate = GENERATE(false, true);
    CAPTURE(N, K, trans_b, accumulate);
    CHECK(max_relative_error<float>(shape(1, 1, N, K, false, trans_b, false, false, accumulate), gemm_f32) < 1e-5 * K);
    CHECK(max_relative_error<float>(shape(3, 2, N, K, true, trans_b, false, true, accumulate), gemm_f32) < 1e-5 * K);
}

TEST_CASE("gemm: f64 loop equals reference to 1e-12", "[unit][gemm]") {
    const bool trans_a = GENERATE(false, true), trans_b = GENERATE(false, true);
    const bool accumulate = GENERATE(false, true), broadcast_b = GENERATE(false, true);
    CAPTURE(trans_a, trans_b, accumulate, broadcast_b);
    CHECK(max_relative_error<double>(shape(3, 17, 65, 3, trans_a, trans_b, false, broadcast_b, accumulate), gemm_f64) <
          1e-12);
    CHECK(max_relative_error<double>(shape(2, 65, 17, 129, trans_a, trans_b, false, broadcast_b, accumulate),
                                     gemm_f64) < 1e-12);
}

TEST_CASE("gemm: empty sizes do not crash, K == 0 gives C = 0 or leaves C when accumulating", "[unit][gemm]") {
    const float A[1] = {}, B[1] = {};
    float C[6] = {1, 1, 1, 1, 1, 1};
    tf::kernels::gemm_onednn(A, B, C, {.batch = 0, .M = 2, .N = 3, .K = 4, .batch_stride_c = 6});
    tf::kernels::gemm_onednn(A, B, C, {.M = 0, .N = 3, .K = 4});
    tf::kernels::gemm_onednn(A, B, C, {.M = 2, .N = 3, .K = 0, .accumulate = true});
    CHECK(std::vector<float>(C, C + 6) == std::vector<float>(6, 1.0f));
    tf::kernels::gemm_onednn(A, B, C, {.M = 2, .N = 3, .K = 0});
    CHECK(std::vector<float>(C, C + 6) == std::vector<float>(6, 0.0f));
    double Cd[6] = {1, 1, 1, 1, 1, 1};
    tf::kernels::gemm(nullptr, nullptr, Cd, GemmShape{.M = 2, .N = 3, .K = 0});
    CHECK(std::vector<double>(Cd, Cd + 6) == std::vector<double>(6, 0.0));
}

TEST_CASE("gemm: errors name matmul and the shape", "[unit][gemm]") {
    const float A[8] = {}, B[8] = {};
    float C[8] = {};
    CHECK_THROWS_WITH(tf::kernels::gemm_onednn(A, B, C, {.batch = 2, .M = 1, .N = 1, .K = 1}),
                      Catch::Contains("matmul") && Catch::Contains("batch 2"));
    // Bad shapes are bad input like any other (exit 2 from the CLI), never a raw std:: exception.
    CHECK_THROWS_AS(tf::kernels::gemm(A, B, C, {.batch = 2, .M = 1, .N = 1, .K = 1}), tf::ShapeError);
    CHECK_THROWS_AS(tf::kernels::gemm_reference(A, B, C, {.M = -1, .N = 1, .K = 1}), tf::ShapeError);
    // Batches of A overlapping (stride 1 < one 2x2 matrix): oneDNN refuses, we rethrow with the shape.
    const GemmShape overlapping{.batch = 2, .M = 2, .N = 2, .K = 2, .batch_stride_a = 1, .batch_stride_b = 4,
                                .batch_stride_c = 4};
    CHECK_THROWS_AS(tf::kernels::gemm_onednn(A, B, C, overlapping), tf::ShapeError);
    CHECK_THROWS_WITH(tf::kernels::gemm_onednn(A, B, C, overlapping),
                      Catch::Contains("matmul") && Catch::Contains("a=1"));
}

namespace {

// The matrices of a product stored with rows wider than they are (lda, ldb, ldc: the gap columns
// hold other numbers, as the other heads of a projection do), and the same product on packed
// copies of them. Returns max |strided − packed| / (1 + |packed|) over C's own columns; fails if a
// gap column of C was written.
template <typename T, typename Gemm>
double strided_against_packed(const GemmShape& s, Gemm gemm) {
    const int64_t a_rows = s.trans_a ? s.K : s.M, a_cols = s.trans_a ? s.M : s.K;
    const int64_t b_rows = s.trans_b ? s.N : s.K, b_cols = s.trans_b ? s.K : s.N;
    const int64_t lda = tf::kernels::row_stride_a(s), ldb = tf::kernels::row_stride_b(s), ldc = tf::kernels::row_stride_c(s);
    const auto A = random_values<T>(s.batch * a_rows * lda, 11), B = random_values<T>(s.batch * b_rows * ldb, 12);
    auto C = random_values<T>(s.batch * s.M * ldc, 13);
    const auto C_before = C;
    std::vector<T> A_packed, B_packed, C_packed;
    for (int64_t b = 0; b < s.batch; ++b) {
        for (int64_t r = 0; r < a_rows; ++r)
            A_packed.insert(A_packed.end(), A.begin() + (b * a_rows + r) * lda, A.begin() + (b * a_rows + r) * lda + a_cols);
        for (int64_t r = 0; r < b_rows; ++r)
            B_packed.insert(B_packed.end(), B.begin() + (b * b_rows + r) * ldb, B.begin() + (b * b_rows + r) * ldb + b_cols);
        for (int64_t r = 0; r < s.M; ++r)
            C_packed.insert(C_packed.end(), C.begin() + (b * s.M + r) * ldc, C.begin() + (b * s.M + r) * ldc + s.N);
    }
    GemmShape strided = s;
    strided.batch_stride_a = a_rows * lda, strided.batch_stride_b = b_rows * ldb, strided.batch_stride_c = s.M * ldc;
    GemmShape packed = s;
    packed.lda = packed.ldb = packed.ldc = 0;
    packed.batch_stride_a = a_rows * a_cols, packed.batch_stride_b = b_rows * b_cols, packed.batch_stride_c = s.M * s.N;
    gemm(A.data(), B.data(), C.data(), strided);
    tf::kernels::gemm_reference(A_packed.data(), B_packed.data(), C_packed.data(), packed);
    double worst = 0;
    for (int64_t b = 0; b < s.batch; ++b)
        for (int64_t r = 0; r < s.M; ++r)
            for (int64_t c = 0; c < ldc; ++c) {
                const int64_t at = (b * s.M + r) * ldc + c;
                if (c >= s.N) {
                    if (C[at] != C_before[at]) return 1e9;   // a gap column was written
                    continue;
                }
                const double expected = C_packed[(b * s.M + r) * s.N + c];
                worst = tf::worse_of(worst, std::abs(double(C[at]) - expected) / (1 + std::abs(expected)));
            }
    return worst;
}

}  // namespace

TEST_CASE("gemm: row strides read and write blocks of wider rows in place, on every path", "[unit][gemm]") {
    // One head's columns of a (T, 3·H·D) projection: a block of D columns, rows 3·H·D apart.
    const auto [M, N, K] = GENERATE(table<int64_t, int64_t, int64_t>({{5, 7, 3}, {33, 17, 65}, {64, 64, 32}, {1, 9, 130}}));
    const bool trans_a = GENERATE(false, true), trans_b = GENERATE(false, true), accumulate = GENERATE(false, true);
    const int64_t batch = GENERATE(1, 3);
    GemmShape s{.batch = batch, .M = M, .N = N, .K = K, .trans_a = trans_a, .trans_b = trans_b, .accumulate = accumulate};
    s.lda = (trans_a ? M : K) + 5, s.ldb = (trans_b ? K : N) + 3, s.ldc = N + 7;
    CAPTURE(batch, M, N, K, trans_a, trans_b, accumulate);
    const auto reference_f32 = [](const float* A, const float* B, float* C, const GemmShape& g) { tf::kernels::gemm_reference(A, B, C, g); };
    CHECK(strided_against_packed<float>(s, reference_f32) < 1e-6);
    CHECK(strided_against_packed<float>(s, onednn_f32) < 1e-5 * K);
    CHECK(strided_against_packed<float>(s, gemm_f32) < 1e-5 * K);   // the row loop for the small ones
    CHECK(strided_against_packed<double>(s, gemm_f64) < 1e-12);
}

TEST_CASE("gemm: a row stride shorter than its row is refused, naming it", "[unit][gemm]") {
    const float A[16] = {}, B[16] = {};
    float C[16] = {};
    CHECK_THROWS_WITH(tf::kernels::gemm(A, B, C, {.M = 2, .N = 2, .K = 3, .lda = 2}),
                      Catch::Contains("matmul") && Catch::Contains("row stride"));
    CHECK_THROWS_AS(tf::kernels::gemm_reference(A, B, C, {.M = 2, .N = 4, .K = 2, .ldc = 3}), tf::ShapeError);
}

TEST_CASE("gemm: the bias and ReLU epilogue equals the product, plus the bias, then max(·, 0), on every path", "[unit][gemm]") {
    // M·N·K from the row loop (< 2^17) through oneDNN on one thread (< 2^21) to both threads.
    const auto [M, N, K] = GENERATE(table<int64_t, int64_t, int64_t>({{5, 7, 3}, {64, 129, 67}, {2048, 130, 128}}));
    const bool trans_b = GENERATE(false, true);
    const auto activation = GENERATE(tf::kernels::GemmActivation::none, tf::kernels::GemmActivation::relu);
    CAPTURE(M, N, K, trans_b, activation == tf::kernels::GemmActivation::relu);
    const GemmShape s{.M = M, .N = N, .K = K, .trans_b = trans_b};
    const auto A = random_values<float>(M * K, 1), B = random_values<float>(K * N, 2), bias = random_values<float>(N, 3);
    std::vector<float> C(M * N), expected(M * N);
    tf::kernels::gemm(A.data(), B.data(), C.data(), s, {.bias = bias.data(), .activation = activation});
    tf::kernels::gemm_reference(A.data(), B.data(), expected.data(), s);
    double worst = 0;
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            double value = double(expected[i * N + j]) + bias[j];
            if (activation == tf::kernels::GemmActivation::relu) value = std::max(value, 0.0);
            worst = tf::worse_of(worst, std::abs(C[i * N + j] - value) / (1 + std::abs(value)));
        }
    CHECK(worst < 1e-5 * K);
    CHECK_THROWS_AS(tf::kernels::gemm(A.data(), B.data(), C.data(), {.M = M, .N = N, .K = K, .accumulate = true}, {.bias = bias.data()}),
                    tf::ShapeError);
}
