// Rotary position embedding as a composition: pairs split off by a reshape, rotated by constant
// cos/sin tables, and put back, so the tape differentiates it with no code here.
#include "layers/rotary.h"

#include <cmath>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

namespace {

// cos(p·θ_i) and sin(p·θ_i) for p = offset + t, as (T, D/2, 1) tables in `dtype`.
std::pair<Tensor, Tensor> rotation_tables(int64_t T, int64_t D, int64_t offset, double base, DType dtype) {
    Tensor cos_table({T, D / 2, 1}, DType::f64), sin_table({T, D / 2, 1}, DType::f64);
    double* cos_values = cos_table.data<double>();
    double* sin_values = sin_table.data<double>();
    for (int64_t t = 0; t < T; ++t)
        for (int64_t i = 0; i < D / 2; ++i) {
            const double theta = std::pow(base, -2.0 * double(i) / double(D));   // θ_i = base^(−2i/D)
            const double angle = double(offset + t) * theta;
            cos_values[t * (D / 2) + i] = std::cos(angle);
            sin_values[t * (D / 2) + i] = std::sin(angle);
        }
    return {cos_table.to(dtype), sin_table.to(dtype)};
}

}  // namespace

Tensor apply_rotary(const Tensor& x, int64_t position_offset, double base) {
    if (x.dim() < 2 || x.size(-1) % 2 != 0)
        throw ShapeError("apply_rotary: x " + to_string(x.shape()) + ": expected (…, T, D) with D even");
    if (!(base > 0)) throw ValueError("apply_rotary: base must be > 0, got " + std::to_string(base));
    const int64_t T = x.size(-2), D = x.size(-1);
    const auto [cos_table, sin_table] = rotation_tables(T, D, position_offset, base, x.dtype());   // (T, D/2, 1)
    Shape pairs_shape = x.shape();
    pairs_shape.back() = D / 2;
    pairs_shape.push_back(2);
    const std::vector<Tensor> halves = split(reshape(x, pairs_shape), {1, 1}, -1);   // x_{2i}, x_{2i+1}: (…, T, D/2, 1)
    const Tensor& even = halves[0];
    const Tensor& odd = halves[1];
    const Tensor rotated_even = even * cos_table - odd * sin_table;   // (…, T, D/2, 1)
    const Tensor rotated_odd = even * sin_table + odd * cos_table;    // (…, T, D/2, 1)
    return reshape(concat({rotated_even, rotated_odd}, -1), x.shape());   // (…, T, D)
}

}  // namespace tf
