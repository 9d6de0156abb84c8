// Ctrl-C and a per-step callback during training (python/step_listener.h).
#include "python/step_listener.h"

#include <Python.h>

#include "python/json_python.h"

namespace tf::python {

train::StepListener StepBridge::listener() {
    return [this](const config::Json& metrics) { return after_step(metrics); };
}

bool StepBridge::after_step(const config::Json& metrics) {
    const py::gil_scoped_acquire gil;
    last_step_ = metrics.value("step", last_step_);
    try {
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();   // a KeyboardInterrupt, usually
        // A callback that returns False stops the run; the trainer's result says so (stopped_by_caller).
        return callback_.is_none() || !callback_(to_python(metrics)).is(py::bool_(false));
    } catch (py::error_already_set& error) {   // kept for raise_pending; the trainer saves and stops
        pending_.emplace(std::move(error));
        return false;
    }
}

void StepBridge::raise_pending(const std::string& how_to_continue) {
    if (!pending_) return;
    py::error_already_set error = std::move(*pending_);
    pending_.reset();
    if (!error.matches(PyExc_KeyboardInterrupt)) throw error;   // the callback's own exception, as it raised it
    const std::string message = "stopped after step " + std::to_string(last_step_) + ", saved; " + how_to_continue;
    PyErr_SetString(PyExc_KeyboardInterrupt, message.c_str());
    throw py::error_already_set();
}

}  // namespace tf::python
