// The gradcheck cases. Inputs stay off kinks (relu at 0, ties in max) and domain edges
// (log, sqrt, pow and division near 0), where finite differences are not the derivative.
#include "autograd/op_checks.h"

#include <cmath>
#include <limits>

#include "autograd/ops.h"

namespace tf {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Uniform values in [low, high), from a seed derived from the shape so each case is fixed.
Tensor values(const Shape& shape, double low = -1.0, double high = 1.0, uint64_t seed = 0) {
    Rng rng(seed + 17 * static_cast<uint64_t>(numel(shape)) + shape.size());
    return Tensor::uniform(shape, low, high, rng, DType::f64);
}

// Values at least 0.2 away from 0 (for relu's kink), with random signs.
Tensor off_zero(const Shape& shape) {
    Tensor x = values(shape, 0.2, 1.0, 5);
    Rng signs(9);
    for (int64_t i = 0; i < x.numel(); ++i)
        if (signs.uniform() < 0.5) x.data<double>()[i] = -x.data<double>()[i];
    return x;
}

// Distinct values 0.1 apart in a shuffled order: a max with no ties.
Tensor distinct(const Shape& shape) {
    Tensor x(shape, DType::f64);
    Rng rng(3);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = 0.1 * static_cast<double>(i);
    for (int64_t i = x.numel() - 1; i > 0; --i) std::swap(x.data<double>()[i], x.data<double>()[rng.below(i + 1)]);
    return x;
}

using Inputs = std::vector<Tensor>;

OpCheck unary(const std::string& op, const std::string& variant, Tensor input, std::function<Tensor(const Tensor&)> f) {
    return {op, variant, [input] { return Inputs{input}; }, [f](const Inputs& in) { return f(in[0]); }};
}

OpCheck binary(const std::string& op, const std::string& variant, Tensor a, Tensor b,
               std::function<Tensor(const Tensor&, const Tensor&)> f) {
    return {op, variant, [a, b] { return Inputs{a, b}; }, [f](const Inputs& in) { return f(in[0], in[1]); }};
}

std::vector<OpCheck> elementwise_checks() {
    return {
        binary("add", "same shape (2,3)", values({2, 3}), values({2, 3}, -1, 1, 1), add),
        binary("add", "broadcast (2,3) + (3)", values({2, 3}), values({3}), add),
        binary("add", "broadcast (2,1,3) + (4,1)", values({2, 1, 3}), values({4, 1}), add),
        binary("add", "broadcast () + (2,2)", values({}), values({2, 2}), add),
        binary("sub", "broadcast (3,4) - (3,1)", values({3, 4}), values({3, 1}), sub),
        binary("mul", "broadcast (2,3,4) * (3,1)", values({2, 3, 4}), values({3, 1}), mul),
        unary("mul", "x * x, the same tensor twice", values({3}), [](const Tensor& x) { return mul(x, x); }),
        binary("div", "broadcast (2,3) / (3)", values({2, 3}), values({3}, 0.5, 2.0), div),
        unary("neg", "(3,4)", values({3, 4}), neg),
        unary("add_scalar", "(3,4) + 2.5", values({3, 4}), [](const Tensor& x) { return add_scalar(x, 2.5); }),
        unary("mul_scalar", "(3,4) * -1.5", values({3, 4}), [](const Tensor& x) { return mul_scalar(x, -1.5); }),
        unary("exp", "(3,4)", values({3, 4}), [](const Tensor& x) { return exp(x); }),
        unary("log", "(3,4) in [0.5, 2)", values({3, 4}, 0.5, 2.0), [](const Tensor& x) { return log(x); }),
        unary("sqrt", "(3,4) in [0.5, 2)", values({3, 4}, 0.5, 2.0), [](const Tensor& x) { return sqrt(x); }),
        unary("pow", "x^3", values({3, 4}), [](const Tensor& x) { return pow(x, 3.0); }),
        unary("pow", "x^-1.5 on [0.5, 2)", values({3, 4}, 0.5, 2.0), [](const Tensor& x) { return pow(x, -1.5); }),
        unary("tanh", "(3,4)", values({3, 4}, -2, 2), [](const Tensor& x) { return tanh(x); }),
        unary("sigmoid", "(3,4)", values({3, 4}, -3, 3), [](const Tensor& x) { return sigmoid(x); }),
        unary("relu", "(3,4), off the kink", off_zero({3, 4}), [](const Tensor& x) { return relu(x); }),
        unary("gelu", "(3,4)", values({3, 4}, -3, 3), [](const Tensor& x) { return gelu(x); }),
    };
}

std::vector<OpCheck> reduction_checks() {
    return {
        unary("sum", "axis 1 of (2,3,4)", values({2, 3, 4}), [](const Tensor& x) { return sum(x, {1}); }),
        unary("sum", "axes {0,2} keepdim", values({2, 3, 4}), [](const Tensor& x) { return sum(x, {0, 2}, true); }),
        unary("sum", "axes {0,1} merged", values({2, 3, 4}), [](const Tensor& x) { return sum(x, {0, 1}); }),
        unary("sum", "everything", values({2, 3}), [](const Tensor& x) { return sum(x); }),
        unary("mean", "axis -1 (composite)", values({2, 3, 4}), [](const Tensor& x) { return mean(x, {-1}); }),
        unary("max", "axis 1 of (3,5), no ties", distinct({3, 5}), [](const Tensor& x) { return max(x, {1}); }),
        unary("max", "axes {0,2} keepdim", distinct({2, 3, 4}), [](const Tensor& x) { return max(x, {0, 2}, true); }),
    };
}

std::vector<OpCheck> matmul_checks() {
    auto mm = [](MatmulOptions options) {
        return [options](const Tensor& a, const Tensor& b) { return matmul(a, b, options); };
    };
    return {
        binary("matmul", "(3,4) x (4,5)", values({3, 4}), values({4, 5}), mm({})),
        binary("matmul", "batched (2,3,4) x (2,4,5)", values({2, 3, 4}), values({2, 4, 5}), mm({})),
        binary("matmul", "folded (2,3,4) x (4,5)", values({2, 3, 4}), values({4, 5}), mm({})),
        binary("matmul", "shared left (3,4) x (2,4,5)", values({3, 4}), values({2, 4, 5}), mm({})),
        binary("matmul", "broadcast (2,1,3,4) x (1,3,4,2)", values({2, 1, 3, 4}), values({1, 3, 4, 2}), mm({})),
        binary("matmul", "A x Bᵀ (2,3,4) x (2,5,4)", values({2, 3, 4}), values({2, 5, 4}), mm({false, true})),
        binary("matmul", "Aᵀ x B (2,4,3) x (2,4,5)", values({2, 4, 3}), values({2, 4, 5}), mm({true, false})),
        binary("matmul", "Aᵀ x Bᵀ (4,3) x (5,4)", values({4, 3}), values({5, 4}), mm({true, true})),
        binary("matmul", "folded A x Bᵀ (2,3,4) x (5,4)", values({2, 3, 4}), values({5, 4}), mm({false, true})),
        {"linear", "(2,3,4) x (5,4)ᵀ + (5)", [] { return Inputs{values({2, 3, 4}), values({5, 4}), values({5})}; },
         [](const Inputs& in) { return linear(in[0], in[1], in[2]); }},
        {"linear", "one row (4) x (3,4)ᵀ + (3)", [] { return Inputs{values({4}), values({3, 4}), values({3})}; },
         [](const Inputs& in) { return linear(in[0], in[1], in[2]); }},
        {"linear", "ReLU epilogue (2,3,4) x (5,4)ᵀ + (5)", [] { return Inputs{values({2, 3, 4}), values({5, 4}), values({5})}; },
         [](const Inputs& in) { return linear(in[0], in[1], in[2], LinearActivation::relu); }},
    };
}

std::vector<OpCheck> shape_checks() {
    const IndexTensor rows({2, 0, 2, 1}, {4});
    const IndexTensor ids({1, 3, 3, 0, 2, 1}, {2, 3});
    const IndexTensor picks({0, 2, 2, 1, 3, 0}, {3, 2});
    return {
        unary("reshape", "(2,6) -> (3,-1)", values({2, 6}), [](const Tensor& x) { return reshape(x, {3, -1}); }),
        unary("transpose", "axes 0,2 of (2,3,4)", values({2, 3, 4}), [](const Tensor& x) { return transpose(x, 0, 2); }),
        unary("permute", "(2,3,4) -> {2,0,1}", values({2, 3, 4}), [](const Tensor& x) { return permute(x, {2, 0, 1}); }),
        unary("permute", "axes of size 1 moved (2,1,3,1) -> {1,0,3,2}", values({2, 1, 3, 1}),
              [](const Tensor& x) { return permute(x, {1, 0, 3, 2}); }),
        binary("concat", "axis 1: (2,3) | (2,2)", values({2, 3}), values({2, 2}),
               [](const Tensor& a, const Tensor& b) { return concat({a, b}, 1); }),
        unary("slice", "axis 1 [1,3) of (2,4)", values({2, 4}), [](const Tensor& x) { return slice(x, 1, 1, 3); }),
        unary("split", "axis 0 into 1+2 (composite)", values({3, 2}), [](const Tensor& x) {
            const auto parts = split(x, {1, 2}, 0);
            return concat({mul_scalar(parts[0], 2.0), parts[1]}, 0);
        }),
        unary("index_select", "rows {2,0,2,1} of (3,4), a repeat", values({3, 4}),
              [rows](const Tensor& x) { return index_select(x, 0, rows); }),
        unary("index_select", "axis 1 of (2,3,2)", values({2, 3, 2}),
              [](const Tensor& x) { return index_select(x, 1, IndexTensor({2, 2, 0})); }),
        unary("embedding", "(4,3) table, ids (2,3) (composite)", values({4, 3}),
              [ids](const Tensor& w) { return embedding(w, ids); }),
        unary("gather", "(3,4) picking 2 per row", values({3, 4}), [picks](const Tensor& x) { return gather(x, picks); }),
    };
}

std::vector<OpCheck> softmax_and_mask_checks() {
    // Row 0 fully masked (must give 0, not NaN), row 1 partly masked.
    const Tensor mask = Tensor::from_data({1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0}, {3, 5}, DType::f64);
    const Tensor row0 = Tensor::from_data({1, 0, 0}, {3, 1}, DType::f64);
    const Tensor condition = Tensor::from_data({1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0}, {3, 4}, DType::f64);
    const IndexTensor targets({3, 0, -100, 6, 2}, {5});
    return {
        unary("softmax", "(3,5)", values({3, 5}, -2, 2), [](const Tensor& x) { return softmax(x); }),
        unary("softmax", "masked with -inf, one row fully", values({3, 5}, -2, 2),
              [mask](const Tensor& x) { return softmax(masked_fill(x, mask, -kInf)); }),
        unary("log_softmax", "(3,5)", values({3, 5}, -2, 2), [](const Tensor& x) { return log_softmax(x); }),
        unary("log_softmax", "fully masked first row", values({3, 5}, -2, 2),
              [row0](const Tensor& x) { return log_softmax(masked_fill(x, row0, -kInf)); }),
        unary("masked_fill", "(3,4) with a (1,4) mask", values({3, 4}), [](const Tensor& x) {
            return masked_fill(x, Tensor::from_data({0, 1, 0, 1}, {1, 4}, DType::f64), 0.5);
        }),
        binary("where", "(3,4) from a (3,4) and b (4)", values({3, 4}), values({4}),
               [condition](const Tensor& a, const Tensor& b) { return where(condition, a, b); }),
        {"layer_norm", "(4,6) with gamma, beta",
         [] { return Inputs{values({4, 6}, -2, 2), values({6}, 0.5, 1.5), values({6})}; },
         [](const Inputs& in) { return layer_norm(in[0], in[1], in[2]); }},
        {"add_layer_norm", "(2,3,5) + (2,3,5) with gamma, beta",
         [] { return Inputs{values({2, 3, 5}, -2, 2), values({2, 3, 5}, -1, 1), values({5}, 0.5, 1.5), values({5})}; },
         [](const Inputs& in) { return add_layer_norm(in[0], in[1], in[2], in[3]); }},
        unary("dropout", "p = 0.3, training, fixed seed", values({4, 5}), [](const Tensor& x) {
            Rng rng(7);
            return dropout(x, 0.3, rng, true);
        }),
        unary("cross_entropy", "(5,7) with one ignored target", values({5, 7}, -2, 2),
              [targets](const Tensor& z) { return cross_entropy(z, targets); }),
        unary("cross_entropy", "label smoothing 0.1", values({5, 7}, -2, 2),
              [targets](const Tensor& z) { return cross_entropy(z, targets, {-100, 0.1}); }),
    };
}

}  // namespace

const std::vector<OpCheck>& op_checks() {
    static const std::vector<OpCheck> table = [] {
        std::vector<OpCheck> all;
        for (auto group : {elementwise_checks(), reduction_checks(), matmul_checks(), shape_checks(),
                           softmax_and_mask_checks()})
            all.insert(all.end(), group.begin(), group.end());
        return all;
    }();
    return table;
}

}  // namespace tf
