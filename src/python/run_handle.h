// tapeformer.Run on the C++ side: a loaded run (train/run_loader.h), its directory, the form of the
// ops its calls run on, and a lock, so two Python threads never run the same model at once (with
// the GIL released, they could).
#pragma once
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "autograd/kernels/mode.h"
#include "config/json_bytes.h"
#include "train/run_loader.h"

namespace tf::python {

namespace py = pybind11;

struct PythonRun {
    train::LoadedRun loaded;
    std::string directory;
    kernels::KernelPath path = kernels::KernelPath::fast;   // the run's own, or reference when load_run asked
    std::mutex busy;
};

// Token ids as text; a byte that is not UTF-8 (a byte-level BPE token) reads as U+FFFD, as the
// CLI's --json shows it.
inline std::string text_of(const train::LoadedRun& run, const std::vector<int64_t>& ids) {
    return config::replace_invalid_utf8(run.dataset.tokenizer.decode(ids));
}

// body(run.loaded) with the GIL released and the run's lock held, on the run's form of the ops.
// `body` must not touch Python objects; what it returns is turned into them after, GIL held.
template <class Body>
auto with_run(PythonRun& run, Body&& body) {
    const py::gil_scoped_release release;   // before the lock: a thread waiting for it must not hold the GIL
    const std::lock_guard<std::mutex> lock(run.busy);
    const kernels::ReferenceKernels ops(run.path);
    return std::forward<Body>(body)(run.loaded);
}

}  // namespace tf::python
