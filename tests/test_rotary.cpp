// Rotary position embedding: a hand-computed rotation, the relative-position property
// ⟨R_m q, R_n k⟩ = f(m − n), norm preservation, and gradcheck of the composition.
#include "catch.h"
#include <cmath>

#include "autograd/error.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/rotary.h"

using namespace tf;

namespace {

double dot(const Tensor& a, const Tensor& b) { return sum(a * b).item(); }

// One vector (1, D) placed at position p.
Tensor at_position(const Tensor& x, int64_t p) { return apply_rotary(x, p); }

}  // namespace

TEST_CASE("rotary: position 1 turns pair i by θ_i = base^(−2i/D), position 0 not at all", "[unit]") {
    CHECK_THROWS_AS(apply_rotary(test::f64({1, 0, 0, 1, 7, 7}, {2, 3})), ShapeError);   // D = 3 is odd
    // x = (1, 0, 0, 1) at positions 0 and 1, D = 4, base 100: θ_0 = 1, θ_1 = 100^(−1/2) = 0.1
    const Tensor two_rows = test::f64({1, 0, 0, 1, 1, 0, 0, 1}, {2, 4});
    const Tensor y = apply_rotary(two_rows, 0, 100);
    test::require_values(y, {1, 0, 0, 1,   //  position 0: unchanged
                             std::cos(1.0), std::sin(1.0), -std::sin(0.1), std::cos(0.1)});
}

TEST_CASE("rotary: ⟨R_m q, R_n k⟩ depends only on m − n", "[property]") {
    Rng rng(3);
    const Tensor q = Tensor::normal({1, 16}, 0, 1, rng, DType::f64);
    const Tensor k = Tensor::normal({1, 16}, 0, 1, rng, DType::f64);
    const double offset_2 = dot(at_position(q, 5), at_position(k, 3));
    CHECK(dot(at_position(q, 2), at_position(k, 0)) == Approx(offset_2).epsilon(1e-12));
    CHECK(dot(at_position(q, 1002), at_position(k, 1000)) == Approx(offset_2).epsilon(1e-9));
    CHECK(dot(at_position(q, 0), at_position(k, -2)) == Approx(offset_2).epsilon(1e-12));
    // and it does depend on the offset: a different m − n gives a different score
    CHECK(std::abs(dot(at_position(q, 5), at_position(k, 4)) - offset_2) > 1e-3);
}

TEST_CASE("rotary: every row keeps its norm", "[property]") {
    Rng rng(4);
    const Tensor x = Tensor::normal({2, 3, 9, 8}, 0, 1, rng, DType::f64);   // (B, H, T, D)
    const Tensor y = apply_rotary(x, 17);
    const Tensor norms_x = sum(x * x, {-1}), norms_y = sum(y * y, {-1});
    CHECK(test::max_relative_difference(norms_y, norms_x) < 1e-12);
    CHECK(test::max_relative_difference(y, x) > 0.1);   // it did rotate
}

TEST_CASE("rotary gradcheck in f64", "[gradcheck]") {
    Rng rng(5);
    const Tensor x = Tensor::normal({2, 5, 6}, 0, 1, rng, DType::f64);
    const auto result = gradcheck([](const auto& in) { return apply_rotary(in[0], 3, 50); }, {x});
    INFO(result.message);
    CHECK(result.ok);
}
