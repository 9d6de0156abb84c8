// tapeformer.tape: one training step's tape as Python objects (what `tapeformer tape` draws), so a
// notebook can list, count or draw the entries itself, and on a tiny model read every value.
#include <pybind11/stl.h>

#include "analysis/reports/tape_view.h"
#include "autograd/op_formulas.h"
#include "python/bindings.h"
#include "python/configs.h"
#include "python/tensor_numpy.h"

namespace tf::python {

namespace {

py::object shape_tuple(const Shape& shape) { return py::tuple(py::cast(shape)); }

py::object array_or_none(const Tensor& tensor) { return tensor.defined() ? py::object(to_numpy(tensor)) : py::none(); }

py::dict entry_of(const TapeNode& node) {
    py::dict entry;
    entry["index"] = node.index;
    entry["op"] = node.op;
    entry["layer"] = node.layer;
    entry["inputs"] = py::cast(node.inputs);
    py::list input_shapes;
    for (const Shape& shape : node.input_shapes) input_shapes.append(shape_tuple(shape));
    entry["input_shapes"] = input_shapes;
    entry["output_shape"] = shape_tuple(node.output_shape);
    entry["dtype"] = numpy_dtype_name(node.dtype);
    entry["bytes"] = node.bytes;
    const OpFormula* formula = find_op_formula(node.op);
    entry["backward"] = formula ? py::object(py::str(std::string(formula->backward))) : py::none();
    entry["math"] = formula ? py::object(py::str(std::string(formula->math))) : py::none();
    entry["value"] = array_or_none(node.value);
    entry["grad"] = array_or_none(node.grad);
    return entry;
}

py::list tape(const py::object& config, const py::object& overrides, int64_t examples, int64_t tokens, bool fast, bool values) {
    const auto check_range = [](const char* name, int64_t value, int64_t most) {
        if (value < 1 || value > most)
            throw ValueError(std::string("tape: ") + name + ": expected an integer in [1, " + std::to_string(most) + "], got " +
                             std::to_string(value));
    };
    check_range("examples", examples, kMaxTapeExamples);
    check_range("tokens", tokens, kMaxTapeTokens);
    train::RunConfig run_config = run_config_from_python(config, override_assignments(overrides));
    run_config.kernels = fast ? kernels::KernelPath::fast : kernels::KernelPath::reference;
    const RecordedStep step = [&] {
        const py::gil_scoped_release release;
        return record_training_step(run_config, {examples, tokens}, values);
    }();
    py::list entries;
    for (const TapeNode& node : step.nodes) entries.append(entry_of(node));
    return entries;
}

}  // namespace

void add_tape(py::module_& module) {
    module.def("tape", &tape, py::arg("config"), py::kw_only(), py::arg("overrides") = py::none(), py::arg("examples") = 2,
               py::arg("tokens") = 8, py::arg("fast") = false, py::arg("values") = false,
               "`tapeformer tape CONFIG`: records one training step of the config's model on its first `examples`\n"
               "training examples cut to `tokens` tokens, runs backward, and returns the tape's entries in recording\n"
               "order, each a dict: index, op, layer (the dotted name that recorded it; '' outside the layers),\n"
               "inputs (per input: '#k' for entry k's output, a parameter's name, 'constant' or 'leaf'),\n"
               "input_shapes, output_shape (tuples), dtype, bytes, backward (its gradients' formula) and math (the\n"
               "docs/math/ section that derives it), value and grad (float arrays with values=True, else None; grad\n"
               "None also for an entry that does not reach the loss). The readable form of every op is recorded\n"
               "(attention as matmul, mask, softmax, matmul); fast=True records the fast path's fused entries.\n"
               "values=True needs a tiny model: an entry of more than 512 numbers raises ConfigError.");
}

}  // namespace tf::python
