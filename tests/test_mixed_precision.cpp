// Mixed precision: bfloat16 rounding worked by hand, and f32 products under MatmulPrecision::bf16
// equal to the reference loop on operands rounded to bf16 (so the rounding, and nothing else, is
// what changes), on odd shapes, transposes, broadcast batches and accumulate; the ops that round
// an operand once and keep it (tiled attention, linear) likewise.
#include "catch.h"

#include "analysis/theorems/measured.h"
#include "autograd/error.h"
#include "autograd/kernels/bfloat16.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/matmul_precision.h"
#include "autograd/ops.h"
#include "autograd/rounded_copy.h"
#include "autograd/storage.h"
#include "autograd/tape.h"
#include "layers/attention/tiled_attention.h"
#include "run_helpers.h"
#include "source_paths.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using tf::kernels::from_bfloat16;
using tf::kernels::GemmShape;
using tf::kernels::MatmulPrecision;
using tf::kernels::to_bfloat16;

namespace {

std::vector<float> random_floats(int64_t count, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values) v = uniform(rng);
    return values;
}

std::vector<float> rounded_to_bfloat16(std::vector<float> values) {
    for (float& v : values) v = from_bfloat16(to_bfloat16(v));
    return values;
}

// max |bf16 gemm − reference on rounded operands| / (1 + |reference|), C pre-filled for accumulate.
double error_against_rounded_reference(const GemmShape& s) {
    // each operand's buffer: its matrices, each stored_rows rows of row_stride values
    const auto values = [&](int64_t batch_stride, int64_t stored_rows, int64_t row_stride) {
        return (batch_stride == 0 ? 1 : s.batch) * std::max(batch_stride, stored_rows * row_stride);
    };
    const auto A = random_floats(values(s.batch_stride_a, s.trans_a ? s.K : s.M, tf::kernels::row_stride_a(s)), 1);
    const auto B = random_floats(values(s.batch_stride_b, s.trans_b ? s.N : s.K, tf::kernels::row_stride_b(s)), 2);
    auto C = random_floats(values(s.batch_stride_c, s.M, tf::kernels::row_stride_c(s)), 3);
    auto C_reference = C;
    {
        const tf::kernels::MatmulPrecisionScope bf16(MatmulPrecision::bf16);
        tf::kernels::gemm(A.data(), B.data(), C.data(), s);
    }
    tf::kernels::gemm_reference(rounded_to_bfloat16(A).data(), rounded_to_bfloat16(B).data(), C_reference.data(), s);
    double worst = 0;
    for (size_t i = 0; i < C.size(); ++i)
        worst = tf::worse_of(worst, std::abs(double(C[i]) - C_reference[i]) / (1 + std::abs(double(C_reference[i]))));
    return worst;
}

// Round to nearest, ties to even, by another route than the bit trick of to_bfloat16: the two
// bf16 neighbours of x (its bits cut to the top 16, and the next bf16 away from zero), the nearer
// one in exact double arithmetic, the one with an even last bit on a tie. Past the largest bf16
// the next one is infinity, which IEEE rounding reaches as if it were 2¹²⁸. Not for NaN.
tf::kernels::bfloat16_bits nearest_bfloat16(float x) {
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint16_t toward_zero = static_cast<uint16_t>(bits >> 16), away = static_cast<uint16_t>(toward_zero + 1);
    if (std::isinf(x)) return toward_zero;
    const double away_value = (away & 0x7FFF) == 0x7F80 ? std::copysign(std::ldexp(1.0, 128), x) : from_bfloat16(away);
    const double below = std::abs(double(x) - from_bfloat16(toward_zero)), above = std::abs(away_value - x);
    if (below != above) return below < above ? toward_zero : away;
    return (toward_zero & 1u) == 0 ? toward_zero : away;
}

// Scoped: bf16 products run natively or emulated (tests restore the default after).
class Bf16ProductsScope {
public:
    explicit Bf16ProductsScope(tf::kernels::Bf16Products products) : previous_(tf::kernels::bf16_products()) {
        tf::kernels::set_bf16_products(products);
    }
    ~Bf16ProductsScope() { tf::kernels::set_bf16_products(previous_); }

private:
    tf::kernels::Bf16Products previous_;
};

}  // namespace

TEST_CASE("bfloat16: rounding to nearest, ties to even, worked by hand", "[unit][precision]") {
    CHECK(to_bfloat16(1.0f) == 0x3F80);                         // 1 = 0x3F800000: the top half
    CHECK(to_bfloat16(-2.5f) == 0xC020);                        // exact in 7 mantissa bits
    CHECK(to_bfloat16(1.0f + 0x1p-8f) == 0x3F80);               // halfway between 1 and 1 + 2⁻⁷: to even (1)
    CHECK(to_bfloat16(1.0f + 3 * 0x1p-8f) == 0x3F82);           // halfway between 1 + 2⁻⁷ and 1 + 2⁻⁶: to even
    CHECK(to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3F81);    // just above halfway: up
    CHECK(to_bfloat16(std::numeric_limits<float>::infinity()) == 0x7F80);
    CHECK(to_bfloat16(std::numeric_limits<float>::max()) == 0x7F80);   // past the largest bf16: infinity
    CHECK(std::isnan(from_bfloat16(to_bfloat16(std::numeric_limits<float>::quiet_NaN()))));
    CHECK(from_bfloat16(0x3FC0) == 1.5f);
}

TEST_CASE("bfloat16: a round trip keeps 8 significant bits (relative error at most 2^-8)", "[property][precision]") {
    // 8 significant bits (7 stored + the implicit 1): rounding moves x by at most half a unit in
    // the last place, 2^(e−8) for |x| ∈ [2^e, 2^(e+1)), so at most 2⁻⁸·|x|.
    const auto values = random_floats(10000, 7);
    std::vector<tf::kernels::bfloat16_bits> rounded(values.size());
    tf::kernels::round_to_bfloat16(values.data(), rounded.data(), static_cast<int64_t>(values.size()));
    int64_t loop_differs = 0;
    double worst_relative = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        loop_differs += rounded[i] != to_bfloat16(values[i]);
        worst_relative = tf::worse_of(worst_relative, std::abs(double(from_bfloat16(rounded[i])) - values[i]) / std::abs(values[i]));
    }
    CHECK(loop_differs == 0);   // the vectorised loop and the scalar agree
    int64_t differs_from_nearest = 0;
    for (size_t i = 0; i < values.size(); ++i) differs_from_nearest += rounded[i] != nearest_bfloat16(values[i]);
    CHECK(differs_from_nearest == 0);   // and both round to nearest, ties to even
    CHECK(worst_relative <= std::ldexp(1.0, -8));
    CHECK(worst_relative > std::ldexp(1.0, -10));   // and it does round: 10,000 values hit near-worst cases
}

TEST_CASE("round_to_bfloat16 (the CPU's conversion where it has one) equals to_bfloat16, denormals aside", "[unit][precision]") {
    // Ties, signs, infinities, NaN, the largest floats, and random values; every length from 0 to
    // 40 so the 16-wide vector loop and its masked tail both run; a denormal gives the portable
    // rounding or, with AVX512-BF16, a zero of its sign.
    std::vector<float> values{1.0f, -2.5f, 1.00390625f, 1.01171875f, 0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
                              -std::numeric_limits<float>::max(), 3.0e38f, 1.1754944e-38f};
    for (float v : random_floats(1000, 9)) values.push_back(v * 1e3f);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    values.push_back(nan);
    for (std::size_t n = 0; n <= 40; ++n) {
        std::vector<tf::kernels::bfloat16_bits> fast(n), portable(n);
        tf::kernels::round_to_bfloat16(values.data() + 1, fast.data(), static_cast<int64_t>(n));
        tf::kernels::round_to_bfloat16_portable(values.data() + 1, portable.data(), static_cast<int64_t>(n));
        for (std::size_t i = 0; i < n; ++i) {   // the rounding by another route, each value finite here
            CHECK(fast[i] == nearest_bfloat16(values[i + 1]));
            CHECK(portable[i] == nearest_bfloat16(values[i + 1]));
        }
    }
    std::vector<tf::kernels::bfloat16_bits> all(values.size());
    tf::kernels::round_to_bfloat16(values.data(), all.data(), static_cast<int64_t>(values.size()));
    for (std::size_t i = 0; i + 1 < values.size(); ++i) CHECK(all[i] == to_bfloat16(values[i]));
    CHECK(std::isnan(from_bfloat16(all.back())));
    const float denormals[2] = {1.0e-39f, -3.0e-40f};
    tf::kernels::bfloat16_bits rounded[2];
    tf::kernels::round_to_bfloat16(denormals, rounded, 2);
    for (int i = 0; i < 2; ++i) {
        const bool flushed = rounded[i] == (denormals[i] < 0 ? 0x8000 : 0x0000);
        CHECK((rounded[i] == to_bfloat16(denormals[i]) || (tf::kernels::rounds_with_avx512_bf16() && flushed)));
    }
}

TEST_CASE("RoundedCopy rounds every value as to_bfloat16, on one thread and where the threads share the tensor", "[unit][precision]") {
    // 1,000 values are rounded on this thread; past 2²⁰ the tensor goes in chunks to the threads,
    // the last chunk a partial one.
    for (const int64_t n : {int64_t{1000}, (int64_t{1} << 20) + 5, (int64_t{1} << 21) + 77}) {
        INFO(n << " values");
        tf::Rng rng(3);
        const tf::Tensor x = tf::Tensor::uniform({n}, -1e3, 1e3, rng);
        const tf::RoundedCopy rounded(x);
        const float* values = x.data<float>();
        int64_t differing = 0;
        for (int64_t i = 0; i < n; ++i) differing += rounded.values()[i] != to_bfloat16(values[i]);
        CHECK(differing == 0);
    }
}

TEST_CASE("gemm in bf16 equals the reference loop on operands rounded to bf16", "[unit][precision]") {
    // the first two are small enough for the row loop, the others go to oneDNN (≥ 2^17 multiply-adds)
    for (const GemmShape& s : {GemmShape{.M = 5, .N = 7, .K = 3},
                               GemmShape{.batch = 3, .M = 9, .N = 4, .K = 6, .trans_a = true, .trans_b = true,
                                         .batch_stride_a = 54, .batch_stride_b = 0, .batch_stride_c = 36, .accumulate = true},
                               GemmShape{.M = 67, .N = 45, .K = 53},
                               GemmShape{.M = 130, .N = 33, .K = 31, .trans_a = true},
                               GemmShape{.M = 65, .N = 129, .K = 64, .trans_b = true, .accumulate = true},
                               GemmShape{.batch = 4, .M = 64, .N = 64, .K = 17, .trans_a = true, .trans_b = true,
                                         .batch_stride_a = 64 * 17, .batch_stride_b = 0, .batch_stride_c = 64 * 64},
                               GemmShape{.batch = 16, .M = 33, .N = 31, .K = 65, .trans_b = true,
                                         .batch_stride_a = 33 * 65, .batch_stride_b = 31 * 65, .batch_stride_c = 33 * 31},
                               // one head's block of wider rows, as the attention tiles read them in place
                               GemmShape{.M = 64, .N = 64, .K = 32, .trans_b = true, .lda = 96, .ldb = 100},
                               GemmShape{.M = 5, .N = 7, .K = 3, .accumulate = true, .lda = 9, .ldb = 8, .ldc = 11},
                               GemmShape{.M = 70, .N = 32, .K = 64, .trans_a = true, .accumulate = true, .lda = 75, .ldb = 40,
                                         .ldc = 96}}) {
        INFO("M " << s.M << " N " << s.N << " K " << s.K << " batch " << s.batch);
        CHECK(error_against_rounded_reference(s) < 1e-5);
    }
}

TEST_CASE("gemm in bf16 with the bias and ReLU epilogue: the rounded operands' product, plus the f32 bias, then ReLU", "[unit][precision]") {
    for (const GemmShape& s : {GemmShape{.M = 5, .N = 7, .K = 3, .trans_b = true}, GemmShape{.M = 300, .N = 129, .K = 64, .trans_b = true},
                               GemmShape{.M = 2048, .N = 96, .K = 128, .trans_b = true}}) {
        INFO("M " << s.M << " N " << s.N << " K " << s.K);
        const auto A = random_floats(s.M * s.K, 1), B = random_floats(s.N * s.K, 2), bias = random_floats(s.N, 3);
        std::vector<float> C(s.M * s.N), expected(s.M * s.N);
        {
            const tf::kernels::MatmulPrecisionScope bf16(MatmulPrecision::bf16);
            tf::kernels::gemm(A.data(), B.data(), C.data(), s, {.bias = bias.data(), .activation = tf::kernels::GemmActivation::relu});
        }
        tf::kernels::gemm_reference(rounded_to_bfloat16(A).data(), rounded_to_bfloat16(B).data(), expected.data(), s);
        double worst = 0;
        for (int64_t i = 0; i < s.M; ++i)
            for (int64_t j = 0; j < s.N; ++j) {
                const double value = std::max(double(expected[i * s.N + j]) + bias[j], 0.0);
                worst = tf::worse_of(worst, std::abs(C[i * s.N + j] - value) / (1 + std::abs(value)));
            }
        CHECK(worst < 1e-5);
    }
}

TEST_CASE("gemm in bf16 differs from f32 by the rounding of its operands, no more", "[property][precision]") {
    const GemmShape s{.M = 64, .N = 64, .K = 64};
    const auto A = random_floats(64 * 64, 4), B = random_floats(64 * 64, 5);
    std::vector<float> C_f32(64 * 64), C_bf16(64 * 64);
    tf::kernels::gemm(A.data(), B.data(), C_f32.data(), s);
    {
        const tf::kernels::MatmulPrecisionScope bf16(MatmulPrecision::bf16);
        tf::kernels::gemm(A.data(), B.data(), C_bf16.data(), s);
    }
    CHECK(tf::kernels::matmul_precision() == MatmulPrecision::fp32);   // the scope restored it
    // |Δ(a·b)| ≲ 2·2⁻⁸·|a·b| per term (each operand off by at most 2⁻⁸ relative): summed over K
    // terms of |a·b| ≤ 1 that bounds the error by 64 · 2⁻⁷ = 0.5; random signs keep it far smaller.
    double largest = 0, sum = 0;
    for (size_t i = 0; i < C_f32.size(); ++i) {
        const double difference = std::abs(double(C_f32[i]) - C_bf16[i]);
        largest = std::max(largest, difference);
        sum += difference;
    }
    CHECK(largest < 0.5);
    CHECK(sum / C_f32.size() > 1e-4);   // bf16 really ran: f32 products would agree to ~1e-6
}

TEST_CASE("tiled attention in bf16: its inputs rounded once, P and dS as they are made, close to fp32 and not equal", "[property][precision]") {
    // causal self-attention read in place from one projection (2 query heads over 1 key/value
    // head), tiles that do not divide T; values and the gradient of qkv, fp32 against bf16
    tf::Rng rng(21);
    const tf::Tensor qkv = tf::Tensor::uniform({2, 45, 4 * 16}, -1, 1, rng), seed = tf::Tensor::uniform({2, 45, 32}, -1, 1, rng);
    const auto run = [&](MatmulPrecision precision) {
        const tf::kernels::MatmulPrecisionScope scope(precision);
        const tf::Tensor leaf = qkv.clone().set_requires_grad();
        tf::Tape::current().clear();
        const tf::Tensor O = tf::tiled_self_attention(leaf, {.heads = 2, .kv_heads = 1}, {.causal = true, .query_tile = 16, .key_tile = 8});
        tf::Tape::current().backward(O, seed);
        return std::make_pair(O, leaf.grad());
    };
    const auto [O32, dqkv32] = run(MatmulPrecision::fp32);
    const auto [O16, dqkv16] = run(MatmulPrecision::bf16);
    const auto relative = [](const tf::Tensor& a, const tf::Tensor& b) {   // ‖a − b‖ / ‖b‖
        const auto x = a.to_vector(), y = b.to_vector();
        double difference = 0, norm = 0;
        for (std::size_t i = 0; i < x.size(); ++i) difference += (x[i] - y[i]) * (x[i] - y[i]), norm += y[i] * y[i];
        return std::sqrt(difference / norm);
    };
    CHECK(relative(O16, O32) < 1e-2);         // bf16 operands: 8 significant bits each
    CHECK(relative(O16, O32) > 1e-5);         // and they really were rounded
    CHECK(relative(dqkv16, dqkv32) < 2e-2);
}

TEST_CASE("tiled attention in bf16: the inputs' rounded copies are tensor memory, counted in peak memory", "[unit][precision]") {
    // The forward's peak above what was live before it: O and L in fp32; in bf16 also the rounded
    // copy of qkv, 2 bytes a value, kept for the backward.
    tf::Rng rng(23);
    const tf::Tensor qkv = tf::Tensor::uniform({2, 30, 3 * 2 * 8}, -1, 1, rng);
    const auto forward_peak = [&](MatmulPrecision precision) {
        const tf::kernels::MatmulPrecisionScope scope(precision);
        tf::Tape::current().clear();
        const int64_t before = tf::memory::live_bytes();
        tf::memory::reset_peak();
        const tf::Tensor O = tf::tiled_self_attention(qkv, {.heads = 2, .kv_heads = 2}, {.causal = true});
        return tf::memory::peak_bytes() - before;
    };
    CHECK(forward_peak(MatmulPrecision::bf16) - forward_peak(MatmulPrecision::fp32) == qkv.numel() * 2);
}

namespace {

// The values of an f32 tensor, each rounded to bf16 and back.
std::vector<float> rounded_values(const tf::Tensor& x) {
    const auto values = x.to_vector();
    return rounded_to_bfloat16(std::vector<float>(values.begin(), values.end()));
}

// max |actual − expected| / (1 + |expected|)
double relative_error(const tf::Tensor& actual, const std::vector<float>& expected) {
    const auto values = actual.to_vector();
    double worst = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        worst = tf::worse_of(worst, std::abs(values[i] - expected[i]) / (1 + std::abs(double(expected[i]))));
    return worst;
}

}  // namespace

TEST_CASE("linear in bf16: its output and gradients are the products of the rounded x, W and output gradient", "[unit][precision]") {
    // (rows, K, N): the row loop's size, then oneDNN's, then an output gradient past 2¹⁹ values
    // (rounded, masked and summed for the bias on the threads); with and without the ReLU
    for (const auto [rows, K, N] :
         {std::array<int64_t, 3>{21, 33, 45}, std::array<int64_t, 3>{300, 64, 129}, std::array<int64_t, 3>{1200, 16, 513}})
        for (const auto activation : {tf::LinearActivation::none, tf::LinearActivation::relu}) {
            INFO("rows " << rows << " K " << K << " N " << N << " relu " << (activation == tf::LinearActivation::relu));
            tf::Rng rng(31);
            const tf::Tensor x = tf::Tensor::uniform({3, rows / 3, K}, -1, 1, rng).set_requires_grad();
            const tf::Tensor W = tf::Tensor::uniform({N, K}, -1, 1, rng).set_requires_grad();
            const tf::Tensor b = tf::Tensor::uniform({N}, -1, 1, rng).set_requires_grad();
            const tf::Tensor dy = tf::Tensor::uniform({3, rows / 3, N}, -1, 1, rng);
            tf::Tensor y;
            {
                const tf::kernels::MatmulPrecisionScope bf16(MatmulPrecision::bf16);
                tf::Tape::current().clear();
                y = tf::linear(x, W, b, activation);
                tf::Tape::current().backward(y, dy);
            }
            // y = act(x₁₆·W₁₆ᵀ + b);  g = dy ⊙ [y > 0] for the ReLU;  dx = g₁₆·W₁₆,  dW = g₁₆ᵀ·x₁₆,  db = Σ_rows g
            const auto x16 = rounded_values(x), W16 = rounded_values(W);
            std::vector<float> expected_y(rows * N), dx(rows * K), dW(N * K), db(N, 0.0f);
            tf::kernels::gemm_reference(x16.data(), W16.data(), expected_y.data(), {.M = rows, .N = N, .K = K, .trans_b = true});
            const auto b_values = b.to_vector(), dy_values = dy.to_vector();
            std::vector<float> g(rows * N);
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t n = 0; n < N; ++n) {
                    float& value = expected_y[r * N + n];
                    value += static_cast<float>(b_values[n]);
                    const bool passes = activation == tf::LinearActivation::none || value > 0;
                    if (!passes) value = 0;
                    g[r * N + n] = passes ? static_cast<float>(dy_values[r * N + n]) : 0.0f;
                    db[n] += g[r * N + n];
                }
            const auto g16 = rounded_to_bfloat16(g);
            tf::kernels::gemm_reference(g16.data(), W16.data(), dx.data(), {.M = rows, .N = K, .K = N});
            tf::kernels::gemm_reference(g16.data(), x16.data(), dW.data(), {.M = N, .N = K, .K = rows, .trans_a = true});
            CHECK(relative_error(y, expected_y) < 1e-5);
            CHECK(relative_error(x.grad(), dx) < 1e-5);
            // dW and db sum over the rows in f32, here and in the op in other orders: their rounding
            // grows with the rows (1,200 f32 terms are ~1e-5 off exact either way)
            const double over_rows = 1e-5 * static_cast<double>(std::max<int64_t>(1, rows / 300));
            CHECK(relative_error(W.grad(), dW) < over_rows);
            CHECK(relative_error(b.grad(), db) < over_rows);
        }
}

TEST_CASE("linear in bf16: the rounded x and W it keeps for the backward are tensor memory, counted in peak memory", "[unit][precision]") {
    // The forward's peak above what was live before it: y in fp32; in bf16 also x and W rounded,
    // 2 bytes a value (sizes whole multiples of the 64-byte allocation unit).
    tf::Rng rng(37);
    const tf::Tensor x = tf::Tensor::uniform({4, 8, 32}, -1, 1, rng), W = tf::Tensor::uniform({48, 32}, -1, 1, rng);
    const tf::Tensor b = tf::Tensor::zeros({48}, tf::DType::f32);
    const auto forward_peak = [&](MatmulPrecision precision) {
        const tf::kernels::MatmulPrecisionScope scope(precision);
        tf::Tape::current().clear();
        const int64_t before = tf::memory::live_bytes();
        tf::memory::reset_peak();
        const tf::Tensor y = tf::linear(x, W, b);
        return tf::memory::peak_bytes() - before;
    };
    CHECK(forward_peak(MatmulPrecision::bf16) - forward_peak(MatmulPrecision::fp32) == (x.numel() + W.numel()) * 2);
}

TEST_CASE("bf16 products on the CPU's instructions equal the emulated ones where it has them, and are refused elsewhere",
          "[unit][precision]") {
    using tf::kernels::Bf16Products;
    if (!tf::kernels::bf16_unsupported_reason().empty()) {
        CHECK(tf::kernels::bf16_products() == Bf16Products::emulated);
        CHECK_THROWS_WITH(tf::kernels::set_bf16_products(Bf16Products::native), Catch::Contains("AVX512-BF16"));
    } else {
        // oneDNN's bf16 kernels and the f32 product of the widened operands: the same products of
        // bf16 values, summed in f32 in other orders.
        for (const GemmShape& s : {GemmShape{.M = 67, .N = 45, .K = 53}, GemmShape{.M = 300, .N = 129, .K = 64, .trans_b = true},
                                   GemmShape{.batch = 16, .M = 33, .N = 31, .K = 65, .trans_b = true, .batch_stride_a = 33 * 65,
                                             .batch_stride_b = 31 * 65, .batch_stride_c = 33 * 31}}) {
            INFO("M " << s.M << " N " << s.N << " K " << s.K << " batch " << s.batch);
            const auto A = random_floats(s.batch * s.M * s.K, 1), B = random_floats(s.batch * s.N * s.K, 2);
            std::vector<float> native(s.batch * s.M * s.N), emulated(native.size());
            const tf::kernels::MatmulPrecisionScope bf16(MatmulPrecision::bf16);
            {
                const Bf16ProductsScope on_instructions(Bf16Products::native);
                tf::kernels::gemm(A.data(), B.data(), native.data(), s);
            }
            {
                const Bf16ProductsScope emulation(Bf16Products::emulated);
                tf::kernels::gemm(A.data(), B.data(), emulated.data(), s);
            }
            double worst = 0;
            for (std::size_t i = 0; i < native.size(); ++i)
                worst = tf::worse_of(worst, std::abs(double(native[i]) - emulated[i]) / (1 + std::abs(double(emulated[i]))));
            CHECK(worst < 1e-5);
        }
    }
}

TEST_CASE("a new bf16 run on a CPU without bf16 instructions is refused, naming them", "[integration][precision]") {
    // ONEDNN_MAX_CPU_ISA=AVX2 hides AVX512-BF16 and AMX from oneDNN in the child, on any CPU.
    const tf::test::TempDir dir;
    tf::test::write_text(dir / "bf16.json", tf::test::read_text(std::string(TF_SOURCE_DIR) + "/configs/copy_transformer.json"));
    ::setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1);
    const tf::test::CliResult checked = tf::test::run_cli({"config", "check", dir / "bf16.json", "--set", "precision=bf16"});
    ::unsetenv("ONEDNN_MAX_CPU_ISA");
    INFO(checked.err);
    CHECK(checked.exit_code == 2);
    CHECK_THAT(checked.err, Catch::Contains("precision") && Catch::Contains("AVX512-BF16"));
}
