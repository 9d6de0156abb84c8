// The trainer's step listener (train/trainer.h) on the Python side, for train and compare, which
// run with the GIL released. After each step it takes the GIL back and
//   1. lets Python handle the signals that came during the step (PyErr_CheckSignals): Ctrl-C — or
//      a notebook's "interrupt the kernel" — raises KeyboardInterrupt here;
//   2. calls the callback, if one was given, with the step's metrics as a dict.
// A Python exception from either stops the run after that step, saved as a signal leaves it
// (resumable), and is raised again once the C++ call has returned (raise_pending); a callback that
// returns False stops it the same way, without an exception. The GIL is held only for this, so
// the step itself never waits for Python, nor Python for it.
#pragma once
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "train/trainer.h"

namespace tf::python {

namespace py = pybind11;

class StepBridge {
public:
    explicit StepBridge(py::object callback) : callback_(std::move(callback)) {}
    StepBridge(const StepBridge&) = delete;
    StepBridge& operator=(const StepBridge&) = delete;

    // The listener to hand the trainer; it refers to this bridge, which must outlive the call.
    train::StepListener listener();
    // With the GIL held, after the C++ call returned: raises what stopped the run, if anything did.
    // A KeyboardInterrupt is raised again with `how_to_continue` as its message (which step it
    // stopped after is said first).
    void raise_pending(const std::string& how_to_continue);

private:
    bool after_step(const config::Json& metrics);

    py::object callback_;   // None: only the signal check
    std::optional<py::error_already_set> pending_;
    int64_t last_step_ = 0;
};

}  // namespace tf::python
