// Softmax and log-softmax over the last axis (the attention-weights op). Rows that are entirely
// −∞ — every key masked — come out as 0 with 0 gradient instead of NaN.
#include "autograd/error.h"
#include "autograd/kernels/softmax.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {
int64_t last_axis(const Tensor& x, const char* op) {
    if (x.dim() == 0) throw ShapeError(std::string(op) + ": needs at least one axis, got a scalar");
    return x.size(-1);
}
}  // namespace

// ── softmax ──  y_j = exp(x_j − max x) / Σ_k exp(x_k − max x)      (max only for stability)
// Backward:     dx = y ⊙ (dy − Σ_j dy_j y_j)                         (the softmax Jacobian)
Tensor softmax(const Tensor& x) {
    const int64_t cols = last_axis(x, "softmax");
    const int64_t rows = cols ? x.numel() / cols : 0;
    Tensor y(x.shape(), x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::softmax_rows(x.data<T>(), y.data<T>(), rows, cols);
    });
    return record("softmax", {x}, y, [y, rows, cols](const Tensor& dy) -> Grads {
        Tensor dx(dy.shape(), dy.dtype());
        dispatch(dy.dtype(), [&](auto zero) {
            using T = decltype(zero);
            kernels::softmax_backward_rows(y.data<T>(), dy.data<T>(), dx.data<T>(), rows, cols);
        });
        return {dx};
    });
}

// ── log_softmax ──  y_j = x_j − max x − log Σ_k exp(x_k − max x)
// Backward:         dx = dy − softmax(x) · Σ_j dy_j
Tensor log_softmax(const Tensor& x) {
    const int64_t cols = last_axis(x, "log_softmax");
    const int64_t rows = cols ? x.numel() / cols : 0;
    Tensor y(x.shape(), x.dtype());
    dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        kernels::log_softmax_rows(x.data<T>(), y.data<T>(), rows, cols);
    });
    return record("log_softmax", {x}, y, [y, rows, cols](const Tensor& dy) -> Grads {
        Tensor dx(dy.shape(), dy.dtype());
        dispatch(dy.dtype(), [&](auto zero) {
            using T = decltype(zero);
            kernels::log_softmax_backward_rows(y.data<T>(), dy.data<T>(), dx.data<T>(), rows, cols);
        });
        return {dx};
    });
}

}  // namespace tf
