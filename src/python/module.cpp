// The compiled half of the tapeformer Python package (build/python/tapeformer/_core*.so), which
// __init__.py imports whole. Each add_* is one file of src/python/ (bindings.h).
#include "python/bindings.h"
#include "python/run_handle.h"

PYBIND11_MODULE(_core, module) {
    using namespace tf::python;
    module.doc() = "tapeformer from Python: train, load, decode and take apart runs (docs/python.md).";
    module.attr("__version__") = TF_VERSION;
    add_errors(module);   // first: the rest may raise them
    add_tensor(module);
    add_configs(module);
    add_training(module);
    auto run = add_run(module);
    add_run_decoding(run);
    add_run_inspection(run);
    add_reports(module);
    add_tape(module);
}
