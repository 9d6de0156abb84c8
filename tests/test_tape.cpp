// The tape's rules: gradients by hand, accumulation, the errors for misuse, NoGradGuard, detach,
// clear, dump.
#include "catch.h"
#include <sstream>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "helpers.h"

using namespace tf;

namespace {
Tensor leaf(const std::vector<double>& values, const Shape& shape) {
    Tensor t = test::f64(values, shape);
    t.set_requires_grad();
    return t;
}
}  // namespace

TEST_CASE("backward of a small expression matches the hand derivative", "[unit]") {
    Tape::current().clear();
    // L = Σ (x ⊙ w + x)  →  dL/dx = w + 1,  dL/dw = x
    Tensor x = leaf({1, 2, 3}, {3});
    Tensor w = leaf({4, 5, 6}, {3});
    const Tensor loss = sum(x * w + x);
    CHECK(loss.item() == 1 * 4 + 2 * 5 + 3 * 6 + 6);
    Tape::current().backward(loss);
    test::require_values(x.grad(), {5, 6, 7});
    test::require_values(w.grad(), {1, 2, 3});
}

TEST_CASE("a tensor used twice receives the sum of both gradients", "[unit]") {
    Tape::current().clear();
    Tensor x = leaf({3}, {1});
    Tape::current().backward(sum(x * x * x));  // d(x³)/dx = 3x² = 27
    test::require_values(x.grad(), {27});
}

TEST_CASE("gradients summed in place never leak into a tensor sharing the first gradient", "[unit]") {
    Tape::current().clear();
    // add hands the same dC to x and y first (recorded last); then x gets 3·r from x·3.
    // L = Σ r ⊙ (x·3) + Σ (x + y)  →  dL/dx = 3r + 1,  dL/dy = 1
    Tensor x = leaf({1, 2}, {2});
    Tensor y = leaf({5, 7}, {2});
    const Tensor r = test::f64({10, 20}, {2});
    const Tensor tripled = x * 3.0;
    Tape::current().backward(sum(r * tripled) + sum(x + y));
    test::require_values(x.grad(), {31, 61});
    test::require_values(y.grad(), {1, 1});
}

TEST_CASE("a gradient accumulated over many uses equals the sum of its parts", "[unit]") {
    Tape::current().clear();
    // L = Σ_k Σ (k+1)·x  over k = 0…9  →  dL/dx = 55, summed in place after the second use
    Tensor x = leaf({1, -1, 2}, {3});
    Tensor total = sum(x);
    for (int k = 1; k < 10; ++k) total = total + sum(x * double(k + 1));
    Tape::current().backward(total);
    test::require_values(x.grad(), {55, 55, 55});
}

TEST_CASE("broadcast gradients are summed back to the input's shape", "[unit]") {
    Tape::current().clear();
    Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor bias = leaf({10, 20, 30}, {3});
    Tape::current().backward(sum(x + bias));
    CHECK(bias.grad().shape() == Shape{3});
    test::require_values(bias.grad(), {2, 2, 2});
    test::require_values(sum_to_shape(Tensor::ones({4, 2, 3}, DType::f64), {2, 1}), {12, 12});
}

TEST_CASE("leaf gradients accumulate over backward calls until zero_grad", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({2}, {1});
    tape.backward(sum(x * 3.0));
    tape.backward(sum(x * 3.0));
    test::require_values(x.grad(), {6});
    x.zero_grad();
    CHECK(!x.grad().defined());
}

TEST_CASE("calling backward twice is a clear error", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1, 2}, {2});
    const Tensor loss = sum(exp(x));
    tape.backward(loss);
    REQUIRE_THROWS_AS(tape.backward(loss), AutogradError);
    REQUIRE_THROWS_WITH(tape.backward(loss), Catch::Contains("called twice"));
}

TEST_CASE("backward on a non-scalar needs a seed of the same shape", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1, 2}, {2});
    const Tensor y = x * 2.0;
    REQUIRE_THROWS_WITH(tape.backward(y), Catch::Contains("(2)") && Catch::Contains("not a scalar"));
    REQUIRE_THROWS_WITH(tape.backward(y, test::f64({1}, {1})), Catch::Contains("does not match"));
    tape.backward(y, test::f64({1, 10}, {2}));
    test::require_values(x.grad(), {2, 20});
}

TEST_CASE("backward on an output that needs no gradient is an error", "[unit]") {
    const Tensor constant = test::f64({1, 2}, {2});
    REQUIRE_THROWS_WITH(Tape::current().backward(sum(constant)), Catch::Contains("does not require a gradient"));
}

TEST_CASE("NoGradGuard records nothing, and restores recording after", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1, 2}, {2});
    {
        NoGradGuard no_grad;
        const Tensor y = exp(x) * 2.0;
        CHECK(!y.requires_grad());
        CHECK(tape.size() == 0);
    }
    const Tensor z = exp(x);
    CHECK(z.requires_grad());
    CHECK(tape.size() == 1);
    tape.clear();
}

TEST_CASE("detach cuts the gradient path but shares the data", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({3}, {1});
    const Tensor frozen = x.detach();
    CHECK(frozen.shares_storage(x));
    CHECK(!frozen.requires_grad());
    tape.backward(sum(x * frozen));  // d(x·c)/dx = c = 3, not 2x = 6
    test::require_values(x.grad(), {3});
}

TEST_CASE("only leaves can be marked as requiring a gradient", "[unit]") {
    Tape::current().clear();
    Tensor x = leaf({1}, {1});
    Tensor y = x * 2.0;
    CHECK(!y.is_leaf());
    REQUIRE_THROWS_AS(y.set_requires_grad(false), AutogradError);
    Tape::current().clear();
}

TEST_CASE("intermediate gradients are freed unless retained", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1, 2}, {2});
    Tensor hidden = x * 2.0;
    Tensor kept = hidden * 3.0;
    kept.retain_grad();
    tape.backward(sum(kept * kept));
    CHECK(!hidden.grad().defined());
    test::require_values(kept.grad(), {12, 24});  // d(k²)/dk = 2k, k = 6x
}

TEST_CASE("clear drops the recorded entries and the activations they hold", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1, 2, 3}, {3});
    const int64_t before = memory::live_bytes();
    {
        const Tensor y = exp(exp(x));
        CHECK(tape.size() == 2);
    }
    CHECK(memory::live_bytes() > before);  // the closures keep the activations alive
    tape.clear();
    CHECK(tape.size() == 0);
    CHECK(memory::live_bytes() == before);
}

TEST_CASE("backward of an output recorded before clear() is an error", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor x = leaf({1}, {1});
    const Tensor loss = sum(x * 2.0);
    tape.clear();
    REQUIRE_THROWS_WITH(tape.backward(loss), Catch::Contains("not on the current tape"));
}

TEST_CASE("dump lists each entry with op, shapes and bytes", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    Tensor a = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
    Tensor b = leaf({1, 2, 3}, {3, 1});
    const Tensor c = matmul(a, b);
    std::ostringstream out;
    tape.dump(out);
    CHECK(out.str().find("matmul") != std::string::npos);
    CHECK(out.str().find("(2,3), (3,1) -> (2,1) f64  16 bytes") != std::string::npos);
    CHECK(out.str().find("1 entries, 16 bytes") != std::string::npos);
    tape.clear();
}

TEST_CASE("check_numerics names the op and layer that produced a NaN, forward and backward", "[unit]") {
    Tape& tape = Tape::current();
    tape.clear();
    set_check_numerics(true);
    Tensor x = leaf({-1, 4}, {2});
    {
        NameScope scope("encoder.layers.0");
        REQUIRE_THROWS_WITH(log(x), "op 'log' in encoder.layers.0 produced NaN at element 0 of (2)");
    }
    // −∞ from masked_fill is allowed (masked scores); a softmax over them stays finite.
    REQUIRE_NOTHROW(softmax(masked_fill(x, test::f64({1, 0}, {2}), -INFINITY)));
    // ... from masked_fill alone: −∞ out of any other op is a fault, and NaN out of masked_fill is too.
    REQUIRE_THROWS_WITH(log(leaf({0}, {1})), "op 'log' produced -inf at element 0 of (1)");
    REQUIRE_THROWS_WITH(masked_fill(x, test::f64({1, 0}, {2}), NAN), "op 'masked_fill' produced NaN at element 0 of (2)");
    tape.clear();
    // sqrt(0) is fine forward, but its gradient 1/(2·0) is +inf.
    Tensor zero = leaf({0}, {1});
    const Tensor loss = sum(sqrt(zero));
    REQUIRE_THROWS_WITH(tape.backward(loss), Catch::StartsWith("the backward of op 'sqrt' produced +inf"));
    set_check_numerics(false);
    tape.clear();
    CHECK(std::isnan(log(x).at({0})));  // off again: no check
}
