// Batched matrix multiply on raw row-major buffers: a readable reference loop, the oneDNN fast
// path for f32, and `gemm`, the entry point the framework calls. Tensors and the tape live elsewhere.
#pragma once

#include <cstdint>

#include "autograd/kernels/bfloat16.h"

namespace tf::kernels {

// One batched matrix multiply: for b in [0, batch): C_b = op(A_b) · op(B_b)
// op(X) = X or Xᵀ. A_b starts at A + b*batch_stride_a (0 = the same A for every b: broadcast), same for B, C.
// Row-major storage: op(A_b) is M×K, op(B_b) is K×N, C_b is M×N.
// If trans_a, A_b is stored K×M (row-major); if trans_b, B_b is stored N×K.
// lda, ldb, ldc: how far apart the stored rows are (0: packed, the stored row's own width). A
// wider stride reads a block of columns in place, such as one head's D columns of a (T, H·D)
// projection.
struct GemmShape {
    int64_t batch = 1, M = 0, N = 0, K = 0;
    bool trans_a = false, trans_b = false;
    int64_t batch_stride_a = 0, batch_stride_b = 0, batch_stride_c = 0;
    bool accumulate = false;   // C += op(A)·op(B) instead of C = ...
    int64_t lda = 0, ldb = 0, ldc = 0;
};

// The stored rows' strides, with 0 resolved: A_b is M×K (K×M if trans_a), B_b K×N (N×K if
// trans_b), C_b M×N.
inline int64_t row_stride_a(const GemmShape& s) { return s.lda ? s.lda : (s.trans_a ? s.M : s.K); }
inline int64_t row_stride_b(const GemmShape& s) { return s.ldb ? s.ldb : (s.trans_b ? s.K : s.N); }
inline int64_t row_stride_c(const GemmShape& s) { return s.ldc ? s.ldc : s.N; }

// The triple loop a student reads: C[i][j] = Σ_k op(A)[i][k] · op(B)[k][j]. Correct, not fast.
void gemm_reference(const float* A, const float* B, float* C, const GemmShape& s);
void gemm_reference(const double* A, const double* B, double* C, const GemmShape& s);

// One cached oneDNN matmul primitive covering every batch (f32 only). Batch strides must be 0 or
// at least one matrix (no overlap); otherwise oneDNN refuses and this throws ShapeError naming
// "matmul" and the shape (as it does for negative sizes or strides, whichever gemm is called).
void gemm_onednn(const float* A, const float* B, float* C, const GemmShape& s);

// What a product adds and applies on its way out, inside the GEMM (oneDNN's bias and post-ops),
// so the output is written once:   C = act(op(A)·op(B) + bias)      bias: N values, one per column
enum class GemmActivation { none, relu };
struct GemmEpilogue {
    const float* bias = nullptr;   // none when null
    GemmActivation activation = GemmActivation::none;
};

// gemm: what the framework calls: oneDNN for f32, a cache-friendly loop for f64 (oneDNN has no f64
// matmul) and for f32 products too small to share between threads (a decoding step's). Under
// MatmulPrecision::bf16 (matmul_precision.h) every f32 product rounds A and B to bf16 and sums
// in f32 (oneDNN's bf16 matmul; the small ones, the row loop on the rounded operands).
void gemm(const float* A, const float* B, float* C, const GemmShape& s);
void gemm(const double* A, const double* B, double* C, const GemmShape& s);
// The same f32 product with an epilogue: one matrix (batch 1), not accumulating.
void gemm(const float* A, const float* B, float* C, const GemmShape& s, const GemmEpilogue& epilogue);

// The same product on operands already rounded to bf16 (bfloat16.h), summed and written in f32:
// for a kernel that rounds each operand once and multiplies it many times (the attention tiles),
// where the f32 entry point would round it again on every call; and with an epilogue (one
// matrix, not accumulating) for a linear layer that keeps its rounded input for the backward.
void gemm(const bfloat16_bits* A, const bfloat16_bits* B, float* C, const GemmShape& s);
void gemm(const bfloat16_bits* A, const bfloat16_bits* B, float* C, const GemmShape& s, const GemmEpilogue& epilogue);

// FLOPs (2·batch·M·N·K) of every gemm and gemm_reference call since the last reset, summed over
// threads: how a benchmark counts the matmul work of one training step.
int64_t gemm_flop_count();
void reset_gemm_flop_count();

// The wall time of the products called outside a parallel region, and their FLOPs, since the last
// reset: with a step's time, the share of the step spent multiplying and the rate the products ran
// at. (A product a thread calls inside a kernel's parallel loop overlaps the other threads' work,
// so its time belongs to that kernel, and it is left out of both counts.)
struct ProductTime {
    int64_t flops = 0;
    double seconds = 0;
};
ProductTime gemm_product_time();
void reset_gemm_product_time();

}  // namespace tf::kernels
