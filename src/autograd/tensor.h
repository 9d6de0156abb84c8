// Tensor: an N-d, row-major, contiguous array of f32 or f64 — a cheap handle (copies share the
// data) that also carries what autograd needs: whether it requires a gradient, and its grad.
//
// Dimension glossary used across tapeformer: B batch, T target time, S source time,
// C model width, H heads, D head width, V vocabulary.
#pragma once
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "autograd/dtype.h"
#include "autograd/random.h"
#include "autograd/shape.h"
#include "autograd/storage.h"

namespace tf {

class Tensor;

// What the tape needs to know about a tensor that takes part in differentiation. Shared by all
// handles to the same tensor; the tape refers to it, not to the data.
struct AutogradMeta {
    bool requires_grad = false;
    bool is_leaf = true;        // made by the user (a parameter or input), not by an op
    bool retain_grad = false;   // keep the grad of a non-leaf after backward (for analysis)
    std::shared_ptr<Tensor> grad;
};

class Tensor {
public:
    Tensor() = default;  // an undefined tensor: no shape, no data
    Tensor(Shape shape, DType dtype);  // uninitialised contents

    // ── factories ──────────────────────────────────────────────────────
    static Tensor zeros(const Shape& shape, DType dtype = DType::f32);
    static Tensor ones(const Shape& shape, DType dtype = DType::f32);
    static Tensor full(const Shape& shape, double value, DType dtype = DType::f32);
    static Tensor arange(int64_t count, DType dtype = DType::f32);  // 0, 1, ..., count-1
    static Tensor from_data(const std::vector<double>& values, const Shape& shape,
                            DType dtype = DType::f32);
    static Tensor scalar(double value, DType dtype = DType::f32);
    static Tensor uniform(const Shape& shape, double low, double high, Rng& rng,
                          DType dtype = DType::f32);
    static Tensor normal(const Shape& shape, double mean, double std, Rng& rng,
                         DType dtype = DType::f32);

    // ── shape and data ─────────────────────────────────────────────────
    bool defined() const { return storage_ != nullptr; }
    const Shape& shape() const { return shape_; }
    int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
    int64_t size(int64_t axis) const;  // negative axes count from the end
    int64_t numel() const { return tf::numel(shape_); }
    DType dtype() const { return dtype_; }
    std::size_t bytes() const { return static_cast<std::size_t>(numel()) * dtype_size(dtype_); }

    template <class T>
    T* data();
    template <class T>
    const T* data() const;
    void* raw_data() { return storage_->data(); }
    const void* raw_data() const { return storage_->data(); }

    double item() const;                                  // the value of a one-element tensor
    double at(const std::vector<int64_t>& index) const;   // element by multi-index
    void set(const std::vector<int64_t>& index, double value);
    std::vector<double> to_vector() const;                // all elements, as doubles

    Tensor to(DType dtype) const;  // a converted copy (or this tensor if already that dtype)
    Tensor clone() const;          // a deep copy of the data, with no autograd history
    bool shares_storage(const Tensor& other) const { return storage_ == other.storage_; }
    // No other handle or view holds this data: writing into it changes no other tensor.
    bool sole_owner() const { return storage_ && storage_.use_count() == 1; }
    // Same data, new shape with the same element count: no copy.
    Tensor view(const Shape& shape) const;

    // ── autograd ───────────────────────────────────────────────────────
    bool requires_grad() const { return meta_ && meta_->requires_grad; }
    Tensor& set_requires_grad(bool requires_grad = true);  // leaves only
    bool is_leaf() const { return !meta_ || meta_->is_leaf; }
    Tensor grad() const;  // undefined until a backward reaches this tensor
    void set_grad(const Tensor& grad);
    void zero_grad();     // drops the accumulated gradient
    void retain_grad();   // keep this non-leaf's gradient after backward
    Tensor detach() const;  // same data, cut from the tape (no grad, a leaf)
    const std::shared_ptr<AutogradMeta>& autograd_meta() const { return meta_; }
    std::shared_ptr<AutogradMeta> ensure_autograd_meta();

    std::string to_string(int64_t max_elements = 64) const;

private:
    std::shared_ptr<Storage> storage_;
    Shape shape_;
    DType dtype_ = DType::f32;
    std::shared_ptr<AutogradMeta> meta_;
};

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

// Throws ValueError naming `op` unless the tensor holds `dtype`.
void check_dtype(const Tensor& tensor, DType dtype, const char* op);

// Integer indices (token ids, targets) with a shape; not differentiable, so not a Tensor.
struct IndexTensor {
    Shape shape;
    std::vector<int64_t> values;  // row-major, numel(shape) of them

    IndexTensor() = default;
    IndexTensor(std::vector<int64_t> values_, Shape shape_);
    explicit IndexTensor(std::vector<int64_t> values_);  // 1-D
    int64_t numel() const { return static_cast<int64_t>(values.size()); }
};

template <class T>
T* Tensor::data() {
    check_dtype(*this, dtype_of<T>(), "data");
    return static_cast<T*>(storage_->data());
}

template <class T>
const T* Tensor::data() const {
    check_dtype(*this, dtype_of<T>(), "data");
    return static_cast<const T*>(storage_->data());
}

}  // namespace tf
