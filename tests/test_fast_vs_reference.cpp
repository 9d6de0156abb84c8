// The fast kernels (threads, oneDNN) against the readable reference loops, on odd shapes, through
// whole ops: the same forward value and the same gradients, in f32.
#include "catch.h"
#include <functional>

#include "autograd/kernels/mode.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"

using namespace tf;

namespace {

struct Outcome {
    Tensor output;
    std::vector<Tensor> grads;
};

// Runs fn on fresh copies of the inputs, backward with a fixed seed gradient, returns value and grads.
Outcome run(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Tensor>& inputs) {
    std::vector<Tensor> leaves;
    for (const Tensor& input : inputs) leaves.push_back(input.clone().set_requires_grad());
    Tape::current().clear();
    Outcome outcome{fn(leaves), {}};
    Rng rng(11);
    Tape::current().backward(outcome.output, Tensor::uniform(outcome.output.shape(), -1, 1, rng));
    for (const Tensor& leaf : leaves) outcome.grads.push_back(leaf.grad());
    return outcome;
}

void require_fast_equals_reference(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                                   const std::vector<Tensor>& inputs, double tolerance = 2e-5) {
    const Outcome fast = run(fn, inputs);
    Outcome reference;
    {
        kernels::ReferenceKernels use_reference_loops;
        reference = run(fn, inputs);
    }
    CHECK(test::max_relative_difference(fast.output, reference.output) < tolerance);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        INFO("gradient of input " << i);
        CHECK(test::max_relative_difference(fast.grads[i], reference.grads[i]) < tolerance);
    }
}

Tensor random(const Shape& shape, uint64_t seed = 1) {
    Rng rng(seed);
    return Tensor::uniform(shape, -1, 1, rng);
}

}  // namespace

TEST_CASE("fast path equals reference: broadcasting elementwise ops", "[unit]") {
    const int64_t n = GENERATE(1, 3, 17, 65);
    INFO("n = " << n);
    require_fast_equals_reference([](const auto& in) { return tanh(in[0] * in[1] + in[0]); },
                                  {random({n, 3, n}), random({3, 1}, 2)});
    require_fast_equals_reference([](const auto& in) { return gelu(in[0]) / (in[1] + 2.0); },
                                  {random({65, n}), random({n}, 3)});
    // n = 65 crosses the threading threshold (2^17 elements).
    require_fast_equals_reference([](const auto& in) { return sigmoid(in[0]) - in[1]; },
                                  {random({n, 4096}), random({1, 4096}, 4)});
}

TEST_CASE("fast path equals reference: tanh, sigmoid, gelu over both branches of their fast forms", "[unit]") {
    const int64_t n = GENERATE(1, 17, 65);
    INFO("n = " << n);
    const Tensor wide = random({n, 999}) * 7.0;  // |x| up to 7: past tanh's 0.625 switch, into gelu's tail
    require_fast_equals_reference([](const auto& in) { return tanh(in[0]); }, {wide});
    require_fast_equals_reference([](const auto& in) { return sigmoid(in[0]); }, {wide});
    require_fast_equals_reference([](const auto& in) { return gelu(in[0]); }, {wide});
}

TEST_CASE("fast path equals reference: reductions", "[unit]") {
    const int64_t n = GENERATE(1, 3, 17, 65);
    INFO("n = " << n);
    require_fast_equals_reference([](const auto& in) { return sum(in[0], {0, 1}); }, {random({n, 17, 300})});
    require_fast_equals_reference([](const auto& in) { return sum(in[0], {2}, true); }, {random({3, n, 1000})});
    require_fast_equals_reference([](const auto& in) { return max(in[0], {1}); }, {random({n, 65, 300})});
}

TEST_CASE("fast path equals reference: matmul in every layout", "[unit]") {
    const int64_t n = GENERATE(1, 3, 17, 65);
    INFO("n = " << n);
    require_fast_equals_reference([](const auto& in) { return matmul(in[0], in[1]); }, {random({n, 17}), random({17, 65}, 2)});
    require_fast_equals_reference([](const auto& in) { return matmul(in[0], in[1]); },
                                  {random({3, n, 17}), random({17, n}, 2)});
    require_fast_equals_reference([](const auto& in) { return matmul(in[0], in[1], {false, true}); },
                                  {random({2, 3, n, 17}), random({2, 3, 65, 17}, 2)});
    require_fast_equals_reference([](const auto& in) { return matmul(in[0], in[1], {true, true}); },
                                  {random({5, 17, n}), random({1, 3, 17}, 2)});
}

TEST_CASE("fast path equals reference: linear with the bias and ReLU in the GEMM's epilogue", "[unit]") {
    // Rows from one (the row loop) to 4,097 (oneDNN on both threads), widths off the vector length;
    // the readable path adds the bias to prefilled rows and applies the ReLU after.
    const int64_t rows = GENERATE(1, 3, 65, 4097);
    INFO("rows = " << rows);
    for (const LinearActivation activation : {LinearActivation::none, LinearActivation::relu}) {
        require_fast_equals_reference([activation](const auto& in) { return linear(in[0], in[1], in[2], activation); },
                                      {random({rows, 67}), random({129, 67}, 2), random({129}, 3)}, 1e-4);
    }
    // ... and the ReLU epilogue is relu(linear(…)), values and gradients
    const std::vector<Tensor> inputs{random({rows, 67}), random({129, 67}, 2), random({129}, 3)};
    const Outcome fused = run([](const auto& in) { return linear(in[0], in[1], in[2], LinearActivation::relu); }, inputs);
    const Outcome composed = run([](const auto& in) { return relu(linear(in[0], in[1], in[2])); }, inputs);
    CHECK(test::max_relative_difference(fused.output, composed.output) < 1e-6);
    for (std::size_t i = 0; i < inputs.size(); ++i) CHECK(test::max_relative_difference(fused.grads[i], composed.grads[i]) < 1e-4);
}

TEST_CASE("fast path equals reference: softmax, log_softmax, layer_norm, cross_entropy", "[unit]") {
    const int64_t n = GENERATE(1, 3, 17, 65);
    INFO("n = " << n);
    require_fast_equals_reference([](const auto& in) { return softmax(in[0]); }, {random({n, 65, 300})});
    require_fast_equals_reference([](const auto& in) { return log_softmax(in[0]); }, {random({n, 17, 300})});
    require_fast_equals_reference([](const auto& in) { return layer_norm(in[0], in[1], in[2]); },
                                  {random({n, 65, 64}), random({64}, 2), random({64}, 3)},
                                  /*tolerance=*/1e-4);  // dγ, dβ sum n·65 rows in a different order
    std::vector<int64_t> targets;
    for (int64_t i = 0; i < n * 65; ++i) targets.push_back(i % 7 == 0 ? -100 : i % 300);
    const IndexTensor target_ids(targets, {n * 65});
    for (const double smoothing : {0.0, 0.1}) {
        INFO("label smoothing " << smoothing);
        require_fast_equals_reference([target_ids, smoothing](const auto& in) { return cross_entropy(in[0], target_ids, {-100, smoothing}); },
                                      {random({n * 65, 300})});
    }
}

TEST_CASE("fast path equals reference: permute and transpose", "[unit]") {
    const int64_t n = GENERATE(1, 3, 17, 65);
    INFO("n = " << n);
    require_fast_equals_reference([](const auto& in) { return permute(in[0], {0, 2, 1, 3}); }, {random({2, n, 65, 17})});
    require_fast_equals_reference([](const auto& in) { return transpose(in[0], 0, 2); }, {random({n, 65, 300})});
}
