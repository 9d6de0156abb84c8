// Shapes: a list of dimension sizes, row-major. Broadcasting rules live here (NumPy's:
// align on the right; a dimension of 1 stretches to match).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tf {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape& shape);
std::string to_string(const Shape& shape);               // "(2,3)"
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Row-major strides in elements: strides[i] = product of shape[i+1:].
std::vector<int64_t> contiguous_strides(const Shape& shape);
// Maps a possibly negative axis (-1 = last) into [0, rank); throws naming the op if out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const char* op);

}  // namespace tf
