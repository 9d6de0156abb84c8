// C++ exceptions as Python exceptions. tapeformer's error types (autograd/error.h) become Python
// classes of the same names under tapeformer, with the same message, so `except
// tapeformer.ConfigError` catches what the CLI reports as "error: <message>" with exit 2. Bad input
// (InputError and below) is also a Python ValueError; every other tapeformer.Error a RuntimeError.
// Code a student has not written yet (the course's stubs) is Python's NotImplementedError. Anything
// else keeps pybind11's mapping: std::bad_alloc is MemoryError, another std::exception RuntimeError.
#include <Python.h>

#include <type_traits>
#include <vector>

#include "autograd/error.h"
#include "python/bindings.h"

namespace tf::python {

namespace {

template <class CppError>
bool is_a(const Error& error) {
    if constexpr (std::is_same_v<CppError, Error>) return true;
    else return dynamic_cast<const CppError*>(&error) != nullptr;
}

struct ErrorClass {
    const char* name;
    int parent;                      // index of the parent class in kErrorClasses; -1: tapeformer.Error's own bases
    bool (*matches)(const Error&);
    const char* doc;
};

// Parents before their children: a C++ error is raised as the last class here that it is.
const ErrorClass kErrorClasses[] = {
    {"Error", -1, is_a<Error>, "Base of every tapeformer error (a RuntimeError)."},
    {"InputError", 0, is_a<InputError>, "Bad input: a config, a data file, a checkpoint, an argument value (also a ValueError)."},
    {"ConfigError", 1, is_a<ConfigError>, "A config value that is wrong; the message names its JSON path."},
    {"DataError", 1, is_a<DataError>, "A data file that is wrong; the message names the file (and line or field)."},
    {"CheckpointError", 1, is_a<CheckpointError>, "A checkpoint that cannot be read or written; the message names the file."},
    {"FileError", 1, is_a<FileError>, "A file or folder the system would not let tapeformer read or write."},
    {"FolderInUse", 1, is_a<FolderInUse>, "A run or comparison folder that another process is writing."},
    {"ShapeError", 1, is_a<ShapeError>, "Shapes that do not fit an op; the message names the op and the shapes."},
    {"MemoryLimitError", 1, is_a<MemoryLimitError>, "More tensor memory than the limit."},
    {"AutogradError", 0, is_a<AutogradError>, "Misuse of the tape."},
    {"NumericsError", 0, is_a<NumericsError>, "A NaN or infinity where there should be none (check_numerics)."},
    {"NonFiniteError", 0, is_a<NonFiniteError>, "A NaN or infinite loss or gradient norm in training."},
};

// The Python classes, made once at import and kept for the life of the process (the module is
// never unloaded), in kErrorClasses' order.
std::vector<PyObject*>& python_classes() {
    static std::vector<PyObject*> classes;
    return classes;
}

PyObject* python_class_of(const Error& error) {
    const auto& classes = python_classes();
    for (std::size_t i = classes.size(); i-- > 0;)
        if (kErrorClasses[i].matches(error)) return classes[i];
    return classes.front();
}

}  // namespace

void add_errors(py::module_& module) {
    auto& classes = python_classes();
    for (const ErrorClass& entry : kErrorClasses) {
        const std::string qualified = std::string("tapeformer.") + entry.name;
        py::object bases = entry.parent >= 0 ? py::reinterpret_borrow<py::object>(classes[static_cast<std::size_t>(entry.parent)])
                                             : py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
        if (entry.name == std::string("InputError")) bases = py::make_tuple(bases, py::handle(PyExc_ValueError));
        PyObject* made = PyErr_NewExceptionWithDoc(qualified.c_str(), entry.doc, bases.ptr(), nullptr);
        if (!made) throw py::error_already_set();
        classes.push_back(made);   // the reference PyErr_NewException gave is the one kept
        module.attr(entry.name) = py::handle(made);
    }
    py::register_exception_translator([](std::exception_ptr pending) {
        try {
            if (pending) std::rethrow_exception(pending);
        } catch (const NotImplemented& error) {
            PyErr_SetString(PyExc_NotImplementedError, error.what());
        } catch (const Error& error) {
            PyErr_SetString(python_class_of(error), error.what());
        }
    });
}

}  // namespace tf::python
