// Matrix multiply with batch broadcasting, on the gemm kernel (oneDNN for f32).
#include <algorithm>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/error.h"
#include "autograd/kernels/elementwise.h"
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"
#include "autograd/kernels/reduce.h"
#include "autograd/ops.h"
#include "autograd/rounded_copy.h"
#include "autograd/tape.h"

namespace tf {

namespace {

struct MatmulPlan {
    Shape out_shape;
    bool fold_batch_into_rows = false;  // A (…, M, K) · B (K, N) is one (…·M, K) · (K, N) gemm
    Shape batch_shape;                  // broadcast batch dimensions of the output
    kernels::GemmShape gemm;
};

std::string shapes_text(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
    return to_string(a.shape()) + (options.transpose_a ? "ᵀ" : "") + " x " + to_string(b.shape()) +
           (options.transpose_b ? "ᵀ" : "");
}

MatmulPlan plan_matmul(const Tensor& a, const Tensor& b, const MatmulOptions& options) {
    if (a.dim() < 2 || b.dim() < 2)
        throw ShapeError("matmul: " + shapes_text(a, b, options) + ": both operands need at least 2 dimensions");
    if (a.dtype() != b.dtype())
        throw ValueError("matmul: " + shapes_text(a, b, options) + ": dtypes differ (" + dtype_name(a.dtype()) +
                         " and " + dtype_name(b.dtype()) + ")");
    const int64_t M = options.transpose_a ? a.size(-1) : a.size(-2);
    const int64_t K = options.transpose_a ? a.size(-2) : a.size(-1);
    const int64_t K_b = options.transpose_b ? b.size(-1) : b.size(-2);
    const int64_t N = options.transpose_b ? b.size(-2) : b.size(-1);
    if (K != K_b)
        throw ShapeError("matmul: " + shapes_text(a, b, options) + ": inner dimensions " + std::to_string(K) +
                         " and " + std::to_string(K_b) + " differ");
    const Shape a_batch(a.shape().begin(), a.shape().end() - 2);
    const Shape b_batch(b.shape().begin(), b.shape().end() - 2);
    MatmulPlan plan;
    plan.batch_shape = broadcast_shapes(a_batch, b_batch, "matmul");
    plan.out_shape = plan.batch_shape;
    plan.out_shape.push_back(M);
    plan.out_shape.push_back(N);
    plan.fold_batch_into_rows = numel(b_batch) == 1 && !options.transpose_a;
    auto& g = plan.gemm;
    g.M = plan.fold_batch_into_rows ? numel(a_batch) * M : M;
    g.N = N;
    g.K = K;
    g.batch = plan.fold_batch_into_rows ? 1 : numel(plan.batch_shape);
    g.trans_a = options.transpose_a;
    g.trans_b = options.transpose_b;
    // An operand whose batch is a single matrix is reused for every batch (stride 0).
    g.batch_stride_a = numel(a_batch) == 1 ? 0 : M * K;
    g.batch_stride_b = numel(b_batch) == 1 ? 0 : K * N;
    g.batch_stride_c = M * N;
    return plan;
}

// Copies an operand out to the full broadcast batch when its batch is neither whole nor a single matrix.
Tensor expand_batch(const Tensor& x, const Shape& batch_shape) {
    const Shape x_batch(x.shape().begin(), x.shape().end() - 2);
    if (x_batch == batch_shape || numel(x_batch) == 1) return x;
    Shape full = batch_shape;
    full.push_back(x.size(-2));
    full.push_back(x.size(-1));
    return kernels::expand(x, full);
}

Tensor matmul_forward(const Tensor& a_in, const Tensor& b_in, const MatmulOptions& options) {
    const MatmulPlan plan = plan_matmul(a_in, b_in, options);
    const Tensor a = expand_batch(a_in, plan.batch_shape);
    const Tensor b = expand_batch(b_in, plan.batch_shape);
    Tensor c(plan.out_shape, a.dtype());
    dispatch(a.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if (kernels::use_reference()) kernels::gemm_reference(a.data<T>(), b.data<T>(), c.data<T>(), plan.gemm);
        else kernels::gemm(a.data<T>(), b.data<T>(), c.data<T>(), plan.gemm);
    });
    return c;
}

// Flattens (…, M, K) to (…·M, K): how the folded case's weight gradient becomes one gemm.
Tensor rows_2d(const Tensor& x) { return x.view({x.numel() / x.size(-1), x.size(-1)}); }

// A linear layer's x (rows, K) and W (N, K) rounded to bf16 once in the forward, under bf16
// products, and kept: its backward multiplies both again.
struct RoundedLinearOperands {
    RoundedCopy x, weight;
};

// dx = g·W (rows, K) and dW = gᵀ·x (N, K) on bf16 operands: x and W as the forward rounded them,
// g (rows, N) rounded once for both products.
std::pair<Tensor, Tensor> rounded_linear_grads(const RoundedCopy& g_rounded, const RoundedLinearOperands& rounded, const Tensor& x,
                                               const Tensor& weight, const std::vector<bool>& needs) {
    const int64_t N = weight.size(0), K = weight.size(1), rows = x.numel() / K;
    Tensor dx, dweight;
    if (needs[0]) {
        dx = Tensor(x.shape(), DType::f32);
        kernels::gemm(g_rounded.values(), rounded.weight.values(), dx.data<float>(), {.M = rows, .N = K, .K = N});
    }
    if (needs[1]) {
        dweight = Tensor(weight.shape(), DType::f32);
        kernels::gemm(g_rounded.values(), rounded.x.values(), dweight.data<float>(), {.M = N, .N = K, .K = rows, .trans_a = true});
    }
    return {dx, dweight};
}

}  // namespace

// ── matmul ──  C = op(A)·op(B),  op(X) = X or Xᵀ             A: (…, M, K)  B: (…, K, N)  C: (…, M, N)
// Backward:  d op(A) = dC·op(B)ᵀ,   d op(B) = op(A)ᵀ·dC        (the tape sums broadcast batch dims)
//   so  dA = dC·op(B)ᵀ  or, if A was transposed,  dA = op(B)·dCᵀ
//       dB = op(A)ᵀ·dC  or, if B was transposed,  dB = dCᵀ·op(A)
Tensor matmul(const Tensor& a, const Tensor& b, MatmulOptions options) {
    Tensor c = matmul_forward(a, b, options);
    const bool b_is_one_matrix = numel(Shape(b.shape().begin(), b.shape().end() - 2)) == 1 && !options.transpose_a;
    return record("matmul", {a, b}, c, [a, b, options, b_is_one_matrix](const Tensor& dc, const std::vector<bool>& needs) -> Grads {
        // BEGIN SOLUTION A1.3
        const bool ta = options.transpose_a, tb = options.transpose_b;
        Tensor da, db;
        if (needs[0])
            da = ta ? matmul_forward(b, dc, {tb, true}) : matmul_forward(dc, b, {false, !tb});
        if (needs[1]) {
            // With B shared by the whole batch, its gradient sums over all rows: one (…·M)-row gemm.
            const Tensor a_rows = b_is_one_matrix ? rows_2d(a) : a;
            const Tensor dc_rows = b_is_one_matrix ? rows_2d(dc) : dc;
            db = tb ? matmul_forward(dc_rows, a_rows, {true, ta}) : matmul_forward(a_rows, dc_rows, {!ta, false});
            if (b_is_one_matrix) db = db.view(b.shape());
        }
        return {da, db};
        // END SOLUTION
    });
}

// ── linear ──  y = act(x·Wᵀ + b),  act = identity or ReLU        x: (…, K)  W: (N, K)  b: (N)  y: (…, N)
// The readable form (kernels/mode.h) is the ops it fuses: matmul, add, relu — three tape entries,
// each with its own backward.
Tensor composed_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation) {
    if (x.dim() == 1) return reshape(composed_linear(reshape(x, {1, x.size(0)}), weight, bias, activation), {weight.size(0)});
    const Tensor y = add(matmul(x, weight, {.transpose_a = false, .transpose_b = true}), bias);   // x·Wᵀ + b
    return activation == LinearActivation::relu ? relu(y) : y;
}

// The fused form hands b and the ReLU to the GEMM's epilogue, so y is written once (f64, which
// oneDNN lacks, starts every output row as b, adds x·Wᵀ into it, then applies the ReLU). Under
// bf16 products x and W are rounded once and kept, and g once: three roundings a layer, not six.
// Backward:  g = dy, or for ReLU g = dy ⊙ [y > 0] (y > 0 exactly where x·Wᵀ + b > 0)
//            dx = g·W,   dW = gᵀ·x (all rows at once),   db = Σ_rows g   (for ReLU in g's own pass)
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation) {
    if (weight.dim() != 2 || bias.dim() != 1 || bias.size(0) != weight.size(0) || x.dim() < 1 || x.size(-1) != weight.size(1))
        throw ShapeError("linear: expected x (…, K), weight (N, K), bias (N), got " + to_string(x.shape()) + ", " +
                         to_string(weight.shape()) + ", " + to_string(bias.shape()));
    if (x.dtype() != weight.dtype() || bias.dtype() != weight.dtype())
        throw ValueError("linear: dtypes differ (" + dtype_name(x.dtype()) + ", " + dtype_name(weight.dtype()) + ", " +
                         dtype_name(bias.dtype()) + ")");
    if (kernels::use_reference()) return composed_linear(x, weight, bias, activation);
    const int64_t N = weight.size(0), K = weight.size(1), rows = x.numel() / K;
    const bool relu = activation == LinearActivation::relu;
    Shape out_shape = x.shape();
    out_shape.back() = N;
    Tensor y(std::move(out_shape), x.dtype());
    const kernels::GemmShape shape{.M = rows, .N = N, .K = K, .trans_b = true};
    std::optional<RoundedLinearOperands> rounded;
    if (products_in_bf16(x.dtype())) rounded = RoundedLinearOperands{RoundedCopy(x), RoundedCopy(weight)};
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        T* out = y.data<T>();
        if constexpr (std::is_same_v<T, float>) {
            const kernels::GemmEpilogue epilogue{.bias = bias.data<T>(),
                                                 .activation = relu ? kernels::GemmActivation::relu : kernels::GemmActivation::none};
            if (rounded) kernels::gemm(rounded->x.values(), rounded->weight.values(), out, shape, epilogue);
            else kernels::gemm(x.data<T>(), weight.data<T>(), out, shape, epilogue);
            return;
        }
        for (int64_t r = 0; r < rows; ++r) std::copy_n(bias.data<T>(), N, out + r * N);
        kernels::GemmShape accumulating = shape;
        accumulating.accumulate = true;
        kernels::gemm(x.data<T>(), weight.data<T>(), out, accumulating);
        if (relu)
            for (int64_t i = 0; i < rows * N; ++i) out[i] = std::max(out[i], T(0));
    });
    return record("linear", {x, weight, bias}, y, [x, weight, y, relu, rounded](const Tensor& dy, const std::vector<bool>& needs) -> Grads {
        Tensor g = rows_2d(dy), dbias;
        if (rounded) {
            // bf16 products: g = dy ⊙ [y > 0] (or dy) rounded once for both, the bias gradient
            // summed in the same pass; only the rounded g is multiplied, so no f32 g is written.
            if (needs[2]) dbias = Tensor({g.size(1)}, g.dtype());
            const RoundedCopy g_rounded = RoundedCopy::filled(g.numel(), [&](kernels::bfloat16_bits* g16) {
                kernels::rounded_output_gradient(g.data<float>(), relu ? y.data<float>() : nullptr, g16,
                                                 needs[2] ? dbias.data<float>() : nullptr, g.size(0), g.size(1));
            });
            const auto [dx, dweight] = rounded_linear_grads(g_rounded, *rounded, x, weight, needs);
            return {dx, dweight, dbias};
        }
        if (relu) {
            Tensor masked(g.shape(), g.dtype());
            dbias = Tensor({g.size(1)}, g.dtype());
            dispatch(g.dtype(), [&](auto zero) {
                using T = decltype(zero);
                kernels::relu_backward_column_sums(y.data<T>(), dy.data<T>(), masked.data<T>(), dbias.data<T>(), g.size(0), g.size(1));
            });
            g = masked;
        } else if (needs[2]) {
            dbias = sum(g, {0});
        }
        Tensor dx, dweight;
        if (needs[0]) dx = matmul_forward(g, weight, {false, false}).view(x.shape());
        if (needs[1]) dweight = matmul_forward(g, rows_2d(x), {true, false});
        return {dx, dweight, needs[2] ? dbias : Tensor()};
    });
}

}  // namespace tf
