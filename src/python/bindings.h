// The tapeformer Python module, one concept a file; module.cpp puts them together. Each add_*
// defines its functions (or its class's methods) on the module, with docstrings that say what
// goes in and what comes out (docs/python.md is the same, for reading).
//
// Two rules hold in every file:
//   - The GIL is released while C++ computes (py::gil_scoped_release): other Python threads run,
//     and a long training or decoding call does not freeze the notebook's other cells' threads.
//     Nothing Python is touched while it is released; results are turned into Python objects after.
//   - Every C++ exception becomes a Python exception with the same message (errors.cpp).
#pragma once
#include <memory>

#include <pybind11/pybind11.h>

namespace tf::python {

namespace py = pybind11;

struct PythonRun;   // run_handle.h

void add_errors(py::module_& module);     // tapeformer.Error and its family
void add_tensor(py::module_& module);     // tapeformer.Tensor <-> NumPy
void add_configs(py::module_& module);    // resolved_config
void add_training(py::module_& module);   // train
void add_reports(py::module_& module);    // compare, theorems
void add_tape(py::module_& module);       // tape

// tapeformer.Run and load_run, with what a run holds (config, vocabulary, evaluation, logits) ...
py::class_<PythonRun, std::shared_ptr<PythonRun>> add_run(py::module_& module);
// ... what it writes (reconstruct, generate) ...
void add_run_decoding(py::class_<PythonRun, std::shared_ptr<PythonRun>>& run);
// ... and what it learned (attention maps, the dependency kernel, analyze).
void add_run_inspection(py::class_<PythonRun, std::shared_ptr<PythonRun>>& run);

}  // namespace tf::python
