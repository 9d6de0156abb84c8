// Tensors and NumPy arrays. Both directions copy: an array made from a tensor owns its numbers, and
// a tensor made from an array does too, so writing into one never changes the other, and nothing
// in Python can hold on to memory the C++ side frees. (The copies are of a model's outputs and
// small inputs, never of a training step's tensors: what they cost does not matter.)
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "analysis/studies/gradient_probe.h"
#include "autograd/tensor.h"

namespace tf::python {

namespace py = pybind11;

// A new C-contiguous array with the tensor's shape: float32 for an f32 tensor, float64 for f64.
py::array to_numpy(const Tensor& tensor);

// A new f32 tensor from a float32 array, f64 from float64, same shape (a 0-d array is a scalar
// tensor). Anything numpy.asarray accepts is read through it first (a list of floats is float64).
// Any other dtype — integers, bool, float16, complex — is refused with a ValueError naming it, not
// converted behind the caller's back.
Tensor from_numpy(const py::handle& array);

// NumPy's name of a tensor's dtype: "float32" or "float64".
inline const char* numpy_dtype_name(DType dtype) { return dtype == DType::f32 ? "float32" : "float64"; }

// A float64 array (rows, columns) of a matrix of rows of equal length.
py::array to_numpy(const Matrix& matrix);

}  // namespace tf::python
