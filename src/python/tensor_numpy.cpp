// tapeformer.Tensor, and the conversions every other file uses to hand arrays to Python
// (python/tensor_numpy.h).
#include "python/tensor_numpy.h"

#include <cstring>

#include <pybind11/stl.h>

#include "python/bindings.h"

namespace tf::python {

namespace {

template <class T>
py::array copy_out(const Tensor& tensor) {
    py::array_t<T> array(std::vector<py::ssize_t>(tensor.shape().begin(), tensor.shape().end()));
    std::memcpy(array.mutable_data(), tensor.data<T>(), tensor.bytes());
    return array;
}

template <class T>
Tensor copy_in(const py::array& array) {
    // forcecast is a no-op here (the dtype already matches): the flag only asks for a C-contiguous copy of a strided view.
    const auto contiguous = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
    if (!contiguous) {   // NumPy could not allocate the copy (and pybind11 cleared its MemoryError)
        const std::string message = "tapeformer.Tensor: no memory for a copy of " + std::to_string(array.size()) + " numbers";
        PyErr_SetString(PyExc_MemoryError, message.c_str());
        throw py::error_already_set();
    }
    Tensor tensor(Shape(contiguous.shape(), contiguous.shape() + contiguous.ndim()), dtype_of<T>());
    std::memcpy(tensor.data<T>(), contiguous.data(), tensor.bytes());
    return tensor;
}

}  // namespace

py::array to_numpy(const Tensor& tensor) {
    return tensor.dtype() == DType::f32 ? copy_out<float>(tensor) : copy_out<double>(tensor);
}

Tensor from_numpy(const py::handle& value) {
    const py::array array = py::module_::import("numpy").attr("asarray")(value);
    if (py::isinstance<py::array_t<float>>(array)) return copy_in<float>(array);
    if (py::isinstance<py::array_t<double>>(array)) return copy_in<double>(array);
    throw ValueError("tapeformer.Tensor: expected a float32 or float64 array, got " + py::cast<std::string>(py::str(array.dtype())) +
                     "; tensors hold only those two (convert first, e.g. array.astype(numpy.float32))");
}

py::array to_numpy(const Matrix& matrix) {
    const std::size_t rows = matrix.size(), columns = matrix.empty() ? 0 : matrix.front().size();
    py::array_t<double> array({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)});
    auto view = array.mutable_unchecked<2>();
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < columns; ++j) view(static_cast<py::ssize_t>(i), static_cast<py::ssize_t>(j)) = matrix[i].at(j);
    return array;
}

void add_tensor(py::module_& module) {
    py::class_<Tensor>(module, "Tensor",
                       "An N-d array of float32 or float64 numbers, as tapeformer's C++ code holds one (row-major).\n"
                       "Made from a NumPy array (a copy) and turned back into one with numpy() (a copy).")
        .def(py::init(&from_numpy), py::arg("array"),
             "Copies a float32 or float64 array (or anything numpy.asarray makes one of) into a new tensor of\n"
             "the same shape and dtype. Other dtypes raise ValueError: convert them first.")
        .def("numpy", py::overload_cast<const Tensor&>(&to_numpy), "A new NumPy array holding a copy of the numbers.")
        .def_property_readonly(
            "shape", [](const Tensor& tensor) { return py::tuple(py::cast(tensor.shape())); }, "The shape, as a tuple.")
        .def_property_readonly(
            "dtype", [](const Tensor& tensor) { return numpy_dtype_name(tensor.dtype()); }, "'float32' or 'float64'.")
        .def(
            "__array__",
            [](const Tensor& tensor, const py::object& dtype, const py::object& copy) {
                // NumPy 2 passes copy=False to ask for no copy, which a tensor cannot give: say so.
                if (!copy.is_none() && !py::cast<bool>(copy))
                    throw ValueError("tapeformer.Tensor: its numbers are always copied into a new array; "
                                     "copy=False cannot be honoured");
                py::object array = to_numpy(tensor);
                return dtype.is_none() ? array : array.attr("astype")(dtype);
            },
            py::arg("dtype") = py::none(), py::arg("copy") = py::none(), "numpy.asarray(tensor): a copy.")
        .def("__repr__", [](const Tensor& tensor) {
            return "tapeformer.Tensor(shape=" + to_string(tensor.shape()) + ", dtype=" + numpy_dtype_name(tensor.dtype()) + ")";
        });
}

}  // namespace tf::python
