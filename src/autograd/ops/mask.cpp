// Masking: replace masked elements by a constant (−∞ before a softmax hides a key), or choose
// between two tensors. A mask is any tensor broadcastable to the input; nonzero means "masked"/"take a".
#include "autograd/kernels/elementwise.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

// ── masked_fill ──  y = value where mask, x elsewhere        dx = dy where not mask, 0 where mask
// Its output may hold −∞ (the value that hides a key before a softmax): --check-numerics lets it.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
    const Tensor m = mask.to(x.dtype());
    Tensor y = dispatch(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        return kernels::zip(x, m, [value](T v, T masked) { return masked != 0 ? static_cast<T>(value) : v; }, "masked_fill");
    });
    return record(
        "masked_fill", {x}, y,
        [m](const Tensor& dy) -> Grads {
            return {kernels::zip(dy, m, [](auto g, auto masked) { return masked != 0 ? decltype(g)(0) : g; }, "masked_fill")};
        },
        NegativeInfinity::allowed);
}

// ── where ──  y = a where condition, b elsewhere          da = dy where condition, db = dy elsewhere
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
    const Tensor c = condition.to(a.dtype());
    const Tensor chosen_a = kernels::zip(c, a, [](auto take, auto v) { return take != 0 ? v : decltype(v)(0); }, "where");
    const Tensor chosen_b = kernels::zip(c, b, [](auto take, auto v) { return take != 0 ? decltype(v)(0) : v; }, "where");
    Tensor y = kernels::zip(chosen_a, chosen_b, [](auto x, auto z) { return x + z; }, "where");
    return record("where", {a, b}, y, [c](const Tensor& dy, const std::vector<bool>& needs) -> Grads {
        const auto keep = [](auto take, auto g) { return take != 0 ? g : decltype(g)(0); };
        const auto drop = [](auto take, auto g) { return take != 0 ? decltype(g)(0) : g; };
        return {needs[0] ? kernels::zip(c, dy, keep, "where") : Tensor(),
                needs[1] ? kernels::zip(c, dy, drop, "where") : Tensor()};
    });
}

}  // namespace tf
