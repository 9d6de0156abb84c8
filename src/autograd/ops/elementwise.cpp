// Broadcasting arithmetic. Each backward returns the gradient in the broadcast output shape;
// the tape sums it back to each input's own shape (sum_to_shape), so no op does that itself.
#include "autograd/kernels/elementwise.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

// ── add ──  C = A + B          dA = dC,  dB = dC
Tensor add(const Tensor& a, const Tensor& b) {
    Tensor c = kernels::zip(a, b, [](auto x, auto y) { return x + y; }, "add");
    return record("add", {a, b}, c, [](const Tensor& dc) -> Grads { return {dc, dc}; });
}

// ── sub ──  C = A − B          dA = dC,  dB = −dC
Tensor sub(const Tensor& a, const Tensor& b) {
    Tensor c = kernels::zip(a, b, [](auto x, auto y) { return x - y; }, "sub");
    return record("sub", {a, b}, c, [](const Tensor& dc, const std::vector<bool>& needs) -> Grads {
        return {dc, needs[1] ? neg(dc) : Tensor()};
    });
}

// ── mul ──  C = A ⊙ B          dA = dC ⊙ B,  dB = dC ⊙ A
Tensor mul(const Tensor& a, const Tensor& b) {
    Tensor c = kernels::zip(a, b, [](auto x, auto y) { return x * y; }, "mul");
    return record("mul", {a, b}, c, [a, b](const Tensor& dc, const std::vector<bool>& needs) -> Grads {
        return {needs[0] ? mul(dc, b) : Tensor(), needs[1] ? mul(dc, a) : Tensor()};
    });
}

// ── div ──  C = A / B          dA = dC / B,  dB = −dC ⊙ A / B² = −dC ⊙ C / B
Tensor div(const Tensor& a, const Tensor& b) {
    Tensor c = kernels::zip(a, b, [](auto x, auto y) { return x / y; }, "div");
    return record("div", {a, b}, c, [b, c](const Tensor& dc, const std::vector<bool>& needs) -> Grads {
        return {needs[0] ? div(dc, b) : Tensor(), needs[1] ? neg(div(mul(dc, c), b)) : Tensor()};
    });
}

// ── neg ──  y = −x             dx = −dy
Tensor neg(const Tensor& x) {
    Tensor y = kernels::map(x, [](auto v) { return -v; });
    return record("neg", {x}, y, [](const Tensor& dy) -> Grads { return {neg(dy)}; });
}

// ── add_scalar ──  y = x + s   dx = dy
Tensor add_scalar(const Tensor& x, double s) {
    Tensor y = dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        return kernels::map(x, [s = static_cast<T>(s)](T v) { return v + s; });
    });
    return record("add_scalar", {x}, y, [](const Tensor& dy) -> Grads { return {dy}; });
}

// ── mul_scalar ──  y = s·x     dx = s·dy
Tensor mul_scalar(const Tensor& x, double s) {
    Tensor y = dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        return kernels::map(x, [s = static_cast<T>(s)](T v) { return v * s; });
    });
    return record("mul_scalar", {x}, y, [s](const Tensor& dy) -> Grads { return {mul_scalar(dy, s)}; });
}

}  // namespace tf
