// Tensor construction, element access, conversion and printing.
#include "autograd/tensor.h"

#include <cstring>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "autograd/error.h"

namespace tf {

Tensor::Tensor(Shape shape, DType dtype) : shape_(std::move(shape)), dtype_(dtype) {
    auto bytes = static_cast<int64_t>(dtype_size(dtype_));
    for (int64_t dim : shape_) {
        if (dim < 0) throw ShapeError("tensor: negative dimension in shape " + tf::to_string(shape_));
        if (__builtin_mul_overflow(bytes, dim, &bytes))
            throw MemoryLimitError("tensor of shape " + tf::to_string(shape_) + ": more bytes than a 64-bit size can count");
    }
    try {
        storage_ = std::make_shared<Storage>(static_cast<std::size_t>(bytes));
    } catch (const MemoryLimitError& error) {
        throw MemoryLimitError("tensor of shape " + tf::to_string(shape_) + ": " + error.what());
    }
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
    Tensor out(shape, dtype);
    std::memset(out.raw_data(), 0, out.bytes());
    return out;
}

Tensor Tensor::ones(const Shape& shape, DType dtype) { return full(shape, 1.0, dtype); }

Tensor Tensor::full(const Shape& shape, double value, DType dtype) {
    Tensor out(shape, dtype);
    dispatch(dtype, [&](auto zero) {
        using T = decltype(zero);
        std::fill_n(out.data<T>(), out.numel(), static_cast<T>(value));
    });
    return out;
}

Tensor Tensor::arange(int64_t count, DType dtype) {
    Tensor out({count}, dtype);
    dispatch(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < count; ++i) out.data<T>()[i] = static_cast<T>(i);
    });
    return out;
}

Tensor Tensor::from_data(const std::vector<double>& values, const Shape& shape, DType dtype) {
    if (static_cast<int64_t>(values.size()) != tf::numel(shape))
        throw ShapeError("from_data: " + std::to_string(values.size()) +
                         " values do not fill shape " + tf::to_string(shape));
    Tensor out(shape, dtype);
    dispatch(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (std::size_t i = 0; i < values.size(); ++i) out.data<T>()[i] = static_cast<T>(values[i]);
    });
    return out;
}

Tensor Tensor::scalar(double value, DType dtype) { return full({}, value, dtype); }

Tensor Tensor::uniform(const Shape& shape, double low, double high, Rng& rng, DType dtype) {
    Tensor out(shape, dtype);
    dispatch(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < out.numel(); ++i) out.data<T>()[i] = static_cast<T>(rng.uniform(low, high));
    });
    return out;
}

Tensor Tensor::normal(const Shape& shape, double mean, double std, Rng& rng, DType dtype) {
    Tensor out(shape, dtype);
    dispatch(dtype, [&](auto zero) {
        using T = decltype(zero);
        for (int64_t i = 0; i < out.numel(); ++i) out.data<T>()[i] = static_cast<T>(rng.normal(mean, std));
    });
    return out;
}

int64_t Tensor::size(int64_t axis) const { return shape_[normalize_axis(axis, dim(), "size")]; }

double Tensor::item() const {
    if (numel() != 1)
        throw ShapeError("item: tensor of shape " + tf::to_string(shape_) + " has " +
                         std::to_string(numel()) + " elements, expected 1");
    return dispatch(dtype_, [&](auto zero) { return static_cast<double>(data<decltype(zero)>()[0]); });
}

namespace {
int64_t flat_offset(const Shape& shape, const std::vector<int64_t>& index) {
    if (index.size() != shape.size())
        throw ShapeError("at: index of rank " + std::to_string(index.size()) +
                         " for a tensor of shape " + to_string(shape));
    int64_t offset = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (index[i] < 0 || index[i] >= shape[i])
            throw ShapeError("at: index " + std::to_string(index[i]) + " out of range for dimension " +
                             std::to_string(i) + " of shape " + to_string(shape));
        offset = offset * shape[i] + index[i];
    }
    return offset;
}
}  // namespace

double Tensor::at(const std::vector<int64_t>& index) const {
    const int64_t offset = flat_offset(shape_, index);
    return dispatch(dtype_, [&](auto zero) { return static_cast<double>(data<decltype(zero)>()[offset]); });
}

void Tensor::set(const std::vector<int64_t>& index, double value) {
    const int64_t offset = flat_offset(shape_, index);
    dispatch(dtype_, [&](auto zero) {
        using T = decltype(zero);
        data<T>()[offset] = static_cast<T>(value);
    });
}

std::vector<double> Tensor::to_vector() const {
    std::vector<double> values(static_cast<std::size_t>(numel()));
    dispatch(dtype_, [&](auto zero) {
        const auto* source = data<decltype(zero)>();
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(source[i]);
    });
    return values;
}

Tensor Tensor::to(DType dtype) const {
    if (dtype == dtype_) return *this;
    Tensor out(shape_, dtype);
    dispatch(dtype_, [&](auto from_zero) {
        dispatch(dtype, [&](auto to_zero) {
            using To = decltype(to_zero);
            const auto* source = data<decltype(from_zero)>();
            To* target = out.data<To>();
            for (int64_t i = 0; i < numel(); ++i) target[i] = static_cast<To>(source[i]);
        });
    });
    return out;
}

Tensor Tensor::clone() const {
    Tensor out(shape_, dtype_);
    std::memcpy(out.raw_data(), raw_data(), bytes());
    return out;
}

Tensor Tensor::view(const Shape& shape) const {
    if (tf::numel(shape) != numel())
        throw ShapeError("view: cannot view shape " + tf::to_string(shape_) + " as " + tf::to_string(shape));
    Tensor out = *this;
    out.shape_ = shape;
    out.meta_ = nullptr;
    return out;
}

Tensor& Tensor::set_requires_grad(bool requires_grad) {
    if (!is_leaf())
        throw AutogradError("set_requires_grad: only leaf tensors (inputs, parameters) can be marked; "
                            "this one was made by an op");
    ensure_autograd_meta()->requires_grad = requires_grad;
    return *this;
}

std::shared_ptr<AutogradMeta> Tensor::ensure_autograd_meta() {
    if (!meta_) meta_ = std::make_shared<AutogradMeta>();
    return meta_;
}

Tensor Tensor::grad() const {
    if (!meta_ || !meta_->grad) return Tensor();
    return *meta_->grad;
}

void Tensor::set_grad(const Tensor& grad) {
    if (grad.defined() && (grad.shape() != shape_ || grad.dtype() != dtype_))
        throw ShapeError("set_grad: gradient " + tf::to_string(grad.shape()) + " " + dtype_name(grad.dtype()) +
                         " does not match tensor " + tf::to_string(shape_) + " " + dtype_name(dtype_));
    ensure_autograd_meta()->grad = grad.defined() ? std::make_shared<Tensor>(grad) : nullptr;
}

void Tensor::zero_grad() {
    if (meta_) meta_->grad = nullptr;
}

void Tensor::retain_grad() { ensure_autograd_meta()->retain_grad = true; }

Tensor Tensor::detach() const {
    Tensor out = *this;
    out.meta_ = nullptr;
    return out;
}

namespace {
// Prints nested brackets row by row, eliding the middle of long tensors.
void print_elements(std::ostream& out, const std::vector<double>& values, const Shape& shape,
                    std::size_t axis, int64_t offset, int64_t max_elements) {
    if (shape.empty()) {
        out << values[0];
        return;
    }
    const int64_t count = shape[axis];
    const int64_t stride = numel(Shape(shape.begin() + static_cast<long>(axis) + 1, shape.end()));
    const bool elide = count > max_elements;
    out << "[";
    for (int64_t i = 0; i < count; ++i) {
        if (elide && i == 3) {
            out << "..., ";
            i = count - 3;
        }
        if (axis + 1 == shape.size()) out << values[static_cast<std::size_t>(offset + i)];
        else print_elements(out, values, shape, axis + 1, offset + i * stride, max_elements);
        if (i + 1 < count) out << (axis + 1 == shape.size() ? ", " : ",\n ");
    }
    out << "]";
}
}  // namespace

std::string Tensor::to_string(int64_t max_elements) const {
    if (!defined()) return "Tensor(undefined)";
    std::ostringstream out;
    out << std::setprecision(6);
    out << "Tensor" << tf::to_string(shape_) << " " << dtype_name(dtype_);
    if (requires_grad()) out << " requires_grad";
    out << "\n";
    if (numel() == 0) out << "[]";
    else print_elements(out, to_vector(), shape_, 0, 0, max_elements);
    return out.str();
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) { return out << tensor.to_string(); }

void check_dtype(const Tensor& tensor, DType dtype, const char* op) {
    if (!tensor.defined()) throw ValueError(std::string(op) + ": tensor is undefined");
    if (tensor.dtype() != dtype)
        throw ValueError(std::string(op) + ": expected dtype " + dtype_name(dtype) + ", got " +
                         dtype_name(tensor.dtype()));
}

IndexTensor::IndexTensor(std::vector<int64_t> values_, Shape shape_)
    : shape(std::move(shape_)), values(std::move(values_)) {
    if (static_cast<int64_t>(values.size()) != tf::numel(shape))
        throw ShapeError("IndexTensor: " + std::to_string(values.size()) + " values do not fill shape " +
                         tf::to_string(shape));
}

IndexTensor::IndexTensor(std::vector<int64_t> values_)
    : shape({static_cast<int64_t>(values_.size())}), values(std::move(values_)) {}

}  // namespace tf
