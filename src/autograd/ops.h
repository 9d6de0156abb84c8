// Every differentiable op of tapeformer. Each one computes its forward value with a kernel and
// records one backward closure on the tape (see tape.h); the formula sits above each definition
// in ops/*.cpp. Shapes broadcast NumPy-style where noted; errors name the op and the shapes.
#pragma once
#include <array>
#include <string_view>
#include <vector>

#include "autograd/random.h"
#include "autograd/tensor.h"

namespace tf {

// ── elementwise, broadcasting (ops/elementwise.cpp) ──────────────────
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor neg(const Tensor& x);
Tensor add_scalar(const Tensor& x, double s);
Tensor mul_scalar(const Tensor& x, double s);

// ── elementwise functions (ops/unary.cpp) ─────────────────────────────
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor pow(const Tensor& x, double exponent);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor gelu(const Tensor& x);  // exact: x·Φ(x), Φ the standard normal CDF

// ── reductions (ops/reduce.cpp); axes may be negative ────────────────
Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim = false);
Tensor sum(const Tensor& x);  // over everything: a scalar
Tensor mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor max(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim = false);

// ── matrix multiply (ops/matmul.cpp) ─────────────────────────────────
// A: (…, M, K) · B: (…, K, N) → (…, M, N), batch dimensions broadcast. transpose_a/_b multiply
// by Aᵀ/Bᵀ of the last two axes without copying.
struct MatmulOptions {
    bool transpose_a = false;
    bool transpose_b = false;
};
Tensor matmul(const Tensor& a, const Tensor& b, MatmulOptions options = {});
// x: (…, K), weight: (N, K), bias: (N) → (…, N): act(x·weightᵀ + bias), the bias and the activation
// applied by the GEMM itself as it writes its output; composed_linear: the same as matmul, add, relu.
enum class LinearActivation { none, relu };
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation = LinearActivation::none);
Tensor composed_linear(const Tensor& x, const Tensor& weight, const Tensor& bias, LinearActivation activation = LinearActivation::none);

// ── shape (ops/shape.cpp) ────────────────────────────────────────────
Tensor reshape(const Tensor& x, Shape shape);  // one dimension may be -1 (inferred)
Tensor transpose(const Tensor& x, int64_t axis0, int64_t axis1);
Tensor permute(const Tensor& x, const std::vector<int64_t>& perm);
Tensor concat(const std::vector<Tensor>& parts, int64_t axis);
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t end);  // [start, end)
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis);

// ── indexing (ops/index.cpp) ─────────────────────────────────────────
// out = x with axis `axis` replaced by the rows named in indices (1-D).
Tensor index_select(const Tensor& x, int64_t axis, const IndexTensor& indices);
// weight: (V, C), ids of any shape → ids.shape + (C): one row of weight per id.
Tensor embedding(const Tensor& weight, const IndexTensor& ids);
// out[…, j] = x[…, indices[…, j]] along the last axis; indices has x's shape but for the last axis.
Tensor gather(const Tensor& x, const IndexTensor& indices);

// ── softmax (ops/softmax.cpp), over the last axis ─────────────────────
Tensor softmax(const Tensor& x);
Tensor log_softmax(const Tensor& x);

// ── masking (ops/mask.cpp); a mask is any tensor, nonzero = true, broadcast to x ──
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);

// ── neural-network ops (ops/nn.cpp) ──────────────────────────────────
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, double eps = 1e-5);
// layer_norm(x + r) in one pass, x and r of one shape: the post-LN residual.
Tensor add_layer_norm(const Tensor& x, const Tensor& r, const Tensor& gamma, const Tensor& beta, double eps = 1e-5);
Tensor dropout(const Tensor& x, double p, Rng& rng, bool training);
struct CrossEntropyOptions {
    int64_t ignore_index = -100;   // targets equal to this add nothing and are not counted
    double label_smoothing = 0.0;  // ε: the target distribution is (1−ε)·onehot + ε/V
};
// logits: (…, V), targets: (…) → mean over non-ignored targets of −Σ_v q_v log softmax(logits)_v.
Tensor cross_entropy(const Tensor& logits, const IndexTensor& targets, CrossEntropyOptions options = {});

// ── not differentiable ────────────────────────────────────────────────
IndexTensor argmax(const Tensor& x);  // along the last axis

// Every op that records its own tape entry (composites such as mean, split and embedding record
// these); the gradcheck table must cover each of them.
inline constexpr auto kOpNames = std::to_array<std::string_view>({
    "add", "sub", "mul", "div", "neg", "add_scalar", "mul_scalar",
    "exp", "log", "sqrt", "pow", "tanh", "sigmoid", "relu", "gelu",
    "sum", "max",
    "matmul", "linear",
    "reshape", "transpose", "permute", "concat", "slice",
    "index_select", "gather",
    "softmax", "log_softmax",
    "masked_fill", "where",
    "layer_norm", "add_layer_norm", "dropout", "cross_entropy"});

// ── operators ─────────────────────────────────────────────────────────
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator-(const Tensor& x) { return neg(x); }
inline Tensor operator+(const Tensor& x, double s) { return add_scalar(x, s); }
inline Tensor operator+(double s, const Tensor& x) { return add_scalar(x, s); }
inline Tensor operator-(const Tensor& x, double s) { return add_scalar(x, -s); }
inline Tensor operator-(double s, const Tensor& x) { return add_scalar(neg(x), s); }
inline Tensor operator*(const Tensor& x, double s) { return mul_scalar(x, s); }
inline Tensor operator*(double s, const Tensor& x) { return mul_scalar(x, s); }
inline Tensor operator/(const Tensor& x, double s) { return mul_scalar(x, 1.0 / s); }
inline Tensor operator/(double s, const Tensor& x) { return mul_scalar(pow(x, -1.0), s); }

}  // namespace tf
