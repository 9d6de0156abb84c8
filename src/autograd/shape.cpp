// Shape helpers: element counts, printing, broadcasting.
#include "autograd/shape.h"

#include "autograd/error.h"

namespace tf {

int64_t numel(const Shape& shape) {
    int64_t count = 1;
    for (int64_t dim : shape) count *= dim;
    return count;
}

std::string to_string(const Shape& shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ",";
        text += std::to_string(shape[i]);
    }
    return text + ")";
}

// out[i] = a[i] if b[i] == 1, b[i] if a[i] == 1, and they must agree otherwise (right-aligned).
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
    const std::size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            throw ShapeError(std::string(op) + ": " + to_string(a) + " and " + to_string(b) +
                             ": cannot broadcast dimension " + std::to_string(i) + " (" +
                             std::to_string(da) + " vs " + std::to_string(db) + ")");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * shape[i + 1];
    return strides;
}

int64_t normalize_axis(int64_t axis, int64_t rank, const char* op) {
    const int64_t normalized = axis < 0 ? axis + rank : axis;
    if (normalized < 0 || normalized >= rank)
        throw ShapeError(std::string(op) + ": axis " + std::to_string(axis) +
                         " is out of range for a tensor of rank " + std::to_string(rank));
    return normalized;
}

}  // namespace tf
