// Measured: the outcome of checking one statement on one set of weights — whether it held and the
// numbers that say so — and the comparisons and number formatting every check of
// `tapeformer theorems` shares.
#pragma once
#include <string>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

struct Measured {
    bool holds = false;
    std::string numbers;  // "max |Σ_j α_ij − 1| = 2.2e-16 over 48 rows, min α_ij = 0.0031"
};

// Equal up to rounding: f64 sums of a few dozen terms agree to ~1e-15, f32 ones to ~1e-6.
double rounding_tolerance(const Tensor& x);  // 1e-12 for f64, 1e-5 for f32

// The larger of the worst error so far and a new one, where a NaN error is infinitely bad:
// std::max(worst, NaN) keeps worst, so a check that took its maximum would pass on NaN values.
double worse_of(double worst, double error);

// max_i |a_i − b_i| / (1 + |b_i|): relative where b is large, absolute near 0. A NaN on one side
// only, or infinities that differ, is an infinite difference (NaN on both sides agrees). Throws
// ShapeError when the shapes differ.
double max_relative_difference(const Tensor& a, const Tensor& b);

std::string short_number(double value, int significant = 2);  // "2.2e-16", "0.31"
std::string short_numbers(const std::vector<double>& values);  // "0, 3e-05, 0.31"

}  // namespace tf
