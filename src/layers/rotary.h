// Rotary position embedding (RoPE, Su et al. 2021): position p turns each pair of features
// (x_{2i}, x_{2i+1}) by the angle p·θ_i, θ_i = base^(−2i/D). A query at m and a key at n then score
// ⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩: attention sees only the offset n − m, and norms are unchanged.
#pragma once
#include <cstdint>

#include "autograd/tensor.h"

namespace tf {

// x: (…, T, D) with D even; row t is at position position_offset + t. Composed from ops (no
// backward of its own): the cos/sin tables are constants.
//   y_{2i}   = x_{2i}·cos(p·θ_i) − x_{2i+1}·sin(p·θ_i)
//   y_{2i+1} = x_{2i}·sin(p·θ_i) + x_{2i+1}·cos(p·θ_i)
Tensor apply_rotary(const Tensor& x, int64_t position_offset = 0, double base = 10000);

}  // namespace tf
