// Small helpers shared by the tests: building tensors from literals and comparing them.
#pragma once
#include "catch.h"
#include <cmath>
#include <vector>

#include "analysis/theorems/measured.h"
#include "autograd/tensor.h"

namespace tf::test {

// A [B, T, C] sequence of standard normal f64 values drawn from `seed`.
inline Tensor random_sequence(int64_t B, int64_t T, int64_t C, uint64_t seed) {
    Rng rng(seed);
    return Tensor::normal({B, T, C}, 0.0, 1.0, rng, DType::f64);
}

inline Tensor f64(const std::vector<double>& values, const Shape& shape) {
    return Tensor::from_data(values, shape, DType::f64);
}

// The largest |a_i − b_i| / (1 + |b_i|), the theorem checks' own measure (analysis/theorems/measured.h).
using tf::max_relative_difference;

inline void require_values(const Tensor& t, const std::vector<double>& expected, double tolerance = 1e-12) {
    const auto values = t.to_vector();
    REQUIRE(values.size() == expected.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        INFO("element " << i);
        REQUIRE(values[i] == Approx(expected[i]).margin(tolerance).epsilon(tolerance));
    }
}

}  // namespace tf::test
