// The sinusoidal table and the learned position rows.
#include "layers/positional.h"

#include <cmath>
#include <string>

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

namespace {

// x must be (B, T, C) with positions offset … offset+T−1 inside the table's max_len rows.
void check_positions(const char* op, const Tensor& x, int64_t offset, const Tensor& table) {
    const int64_t max_len = table.size(0), width = table.size(1);
    if (x.dim() != 3 || x.size(2) != width)
        throw ShapeError(std::string(op) + ": input " + to_string(x.shape()) + " must be (B, T, C=" +
                         std::to_string(width) + ")");
    if (offset < 0 || offset + x.size(1) > max_len)
        throw ShapeError(std::string(op) + ": positions [" + std::to_string(offset) + ", " +
                         std::to_string(offset + x.size(1)) + ") exceed max_len " + std::to_string(max_len));
}

}  // namespace

// ω_i = 1 / 10000^{2i/C}, computed as exp(−2i · ln 10000 / C) like the PyTorch reference.
double SinusoidalPositionalEncoding::frequency(int64_t i, int64_t width) {
    return std::exp(-static_cast<double>(2 * i) * std::log(10000.0) / static_cast<double>(width));
}

// PE(pos, 2i) = sin(pos·ω_i),  PE(pos, 2i+1) = cos(pos·ω_i)      (filled in double, then converted)
SinusoidalPositionalEncoding::SinusoidalPositionalEncoding(int64_t max_len, int64_t width, InputScale scale,
                                                           DType dtype)
    : scale_(scale) {
    if (max_len < 1 || width < 1)
        throw ValueError("SinusoidalPositionalEncoding: max_len " + std::to_string(max_len) + " and width " +
                         std::to_string(width) + " must be ≥ 1");
    Tensor table({max_len, width}, DType::f64);  // (max_len, C)
    double* pe = table.data<double>();
    for (int64_t pos = 0; pos < max_len; ++pos) {
        for (int64_t column = 0; column < width; ++column) {
            const double angle = static_cast<double>(pos) * frequency(column / 2, width);
            pe[pos * width + column] = column % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    }
    table_ = table.to(dtype);
}

Tensor SinusoidalPositionalEncoding::forward(const Tensor& x, int64_t offset) const {
    check_positions("SinusoidalPositionalEncoding", x, offset, table_);
    const Tensor scaled = scale_ == InputScale::sqrt_width ? x * std::sqrt(static_cast<double>(x.size(2))) : x;
    return scaled + slice(table_, 0, offset, offset + x.size(1));  // (B, T, C) + (T, C)
}

LearnedPositionalEncoding::LearnedPositionalEncoding(int64_t max_len, int64_t width, const InitScheme& init, Rng& rng,
                                                     DType dtype) {
    weight_ = register_parameter("weight", init_tensor({max_len, width}, width, width, init, rng, dtype));
}

// x + weight[offset : offset + T]; the gradient reaches only the rows used.
Tensor LearnedPositionalEncoding::forward(const Tensor& x, int64_t offset) const {
    check_positions("LearnedPositionalEncoding", x, offset, weight_);
    return x + slice(weight_, 0, offset, offset + x.size(1));  // (B, T, C) + (T, C)
}

}  // namespace tf
