// tapeformer.compare and tapeformer.theorems: the CLI's two reports past one run, returning their
// data (compare's report.json, theorems' --json lines) as Python objects.
#include <filesystem>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "analysis/studies/compare.h"
#include "analysis/theorems/theorems.h"
#include "python/bindings.h"
#include "python/configs.h"
#include "python/json_python.h"
#include "python/run_handle.h"
#include "python/step_listener.h"

namespace tf::python {

namespace {

py::object compare(const py::object& config, const py::object& overrides, const std::optional<std::filesystem::path>& run_dir,
                   const py::object& on_step, bool quiet, bool reference) {
    std::vector<std::string> assignments = override_assignments(overrides);
    if (reference) assignments.push_back("kernels=reference");   // every run, saved with each
    const CompareConfig compare_config = compare_config_from_python(config, assignments);
    CompareOptions options;
    options.out_dir = run_dir ? run_dir->string() : "runs/" + compare_config.name;
    options.quiet = quiet;
    // How the report says it was made: this call, with its config and overrides as Python writes them.
    options.command = "tapeformer.compare(" + py::cast<std::string>(py::repr(config)) +
                      (assignments.empty() ? "" : ", overrides=" + py::cast<std::string>(py::repr(py::cast(assignments)))) + ")";
    StepBridge bridge(on_step);
    options.on_step = bridge.listener();
    try {
        const py::gil_scoped_release release;
        run_compare(compare_config, options);
    } catch (const CompareInterrupted&) {
        bridge.raise_pending("call tapeformer.compare with the same config again to continue (finished runs are "
                             "reused, the stopped one resumes)");
        return py::none();   // the callback returned False
    }
    return to_python(read_report_json(options.out_dir + "/report.json"));
}

py::list theorems(const std::shared_ptr<PythonRun>& run, uint64_t seed, bool reference) {
    const kernels::KernelPath asked = reference ? kernels::KernelPath::reference : kernels::KernelPath::fast;
    std::vector<TheoremCheck> checks;
    if (run) {   // on the run's own form of the ops (with_run), or the readable one when asked
        checks = with_run(*run, [&](train::LoadedRun& loaded) {
            const kernels::ReferenceKernels ops(asked);
            return run_theorems({.seed = seed, .trained = loaded.model.get()});
        });
    } else {
        const py::gil_scoped_release release;
        const kernels::ReferenceKernels ops(asked);
        checks = run_theorems({.seed = seed});
    }
    py::list lines;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        py::dict line = to_python(theorem_json(i + 1, checks[i]));
        line["short_statement"] = checks[i].short_statement;
        line["key_number"] = checks[i].key_number;
        lines.append(line);
    }
    return lines;
}

}  // namespace

void add_reports(py::module_& module) {
    module.def("compare", &compare, py::arg("config"), py::kw_only(), py::arg("overrides") = py::none(),
               py::arg("run_dir") = py::none(), py::arg("on_step") = py::none(), py::arg("quiet") = true,
               py::arg("reference") = false,
               "`tapeformer compare CONFIG`: trains every variant and seed (reusing finished runs, resuming stopped\n"
               "ones), writes report.md, report.html, report.json and plots/ into run_dir (default runs/<name>), and\n"
               "returns report.json's data as a dict (its variants, each run's measurements, the predictions).\n"
               "config, overrides, on_step, Ctrl-C: as for train() (every run's steps are heard); a stopped\n"
               "comparison continues when called again with the same config. Returns None when on_step stopped it.");
    module.def("theorems", &theorems, py::arg("run") = py::none(), py::kw_only(), py::arg("seed") = 1,
               py::arg("reference") = false,
               "`tapeformer theorems [--run DIR] --json`: the 13 statements of attention theory checked on random\n"
               "weights (seed) and, given a Run, on its first multi-head attention. A list of dicts, one a statement:\n"
               "number, statement, short_statement, key_number, math_ref (the docs/math/ section), measured, holds,\n"
               "expected_to_hold, as_expected.");
}

}  // namespace tf::python
