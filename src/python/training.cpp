// tapeformer.train: `tapeformer train` from Python, from a config file or a dict, or resuming a run,
// with a callback after every step and Ctrl-C stopping it cleanly (python/step_listener.h).
#include <filesystem>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "python/bindings.h"
#include "python/configs.h"
#include "python/json_python.h"
#include "python/step_listener.h"
#include "train/trainer.h"

namespace tf::python {

namespace {

py::object valid_metrics(const train::EvalMetrics& valid) {
    if (valid.tokens == 0) return py::none();   // the data has no validation split
    py::dict metrics;
    metrics["loss"] = valid.loss;
    metrics["perplexity"] = valid.perplexity;
    metrics["token_accuracy"] = valid.token_accuracy;
    metrics["sequence_accuracy"] = valid.sequence_accuracy;
    return metrics;
}

py::dict train_run(const py::object& config, const py::object& overrides, const std::optional<std::filesystem::path>& run_dir,
                   const std::optional<std::filesystem::path>& resume, const std::optional<std::filesystem::path>& init,
                   const py::object& on_step, bool quiet, bool check_numerics, bool reference) {
    if (config.is_none() == !resume.has_value())   // the CLI's own words
        throw ConfigError("train: give a CONFIG file to start a run, or --resume DIR to continue one (not both)");
    std::vector<std::string> assignments = override_assignments(overrides);
    if (reference) assignments.push_back("kernels=reference");   // saved with the run, as --reference is
    train::TrainOptions options;
    options.quiet = quiet;
    options.check_numerics = check_numerics;
    options.init_weights = init ? init->string() : "";
    train::RunConfig run_config;
    if (resume) {
        run_config = train::resumed_run_config(resume->string(), assignments);
        options.run_dir = resume->string();
        options.resume = true;
    } else {
        run_config = run_config_from_python(config, assignments);
        options.run_dir = run_dir ? run_dir->string() : "";
    }
    StepBridge bridge(on_step);
    options.on_step = bridge.listener();
    train::TrainResult result;
    {
        const py::gil_scoped_release release;
        result = train::train(run_config, options);
    }
    bridge.raise_pending("continue with tapeformer.train(resume='" + result.run_dir + "')");
    py::dict summary;
    summary["run_dir"] = result.run_dir;
    summary["steps"] = result.steps;
    summary["stopped"] = result.stopped_by_caller;
    summary["valid"] = valid_metrics(result.valid);
    return summary;
}

}  // namespace

void add_training(py::module_& module) {
    module.def("train", &train_run, py::arg("config") = py::none(), py::kw_only(), py::arg("overrides") = py::none(),
               py::arg("run_dir") = py::none(), py::arg("resume") = py::none(), py::arg("init") = py::none(),
               py::arg("on_step") = py::none(), py::arg("quiet") = true, py::arg("check_numerics") = false,
               py::arg("reference") = false,
               "Trains a model as `tapeformer train` does, into a run directory, and returns\n"
               "{'run_dir', 'steps', 'stopped', 'valid'} (valid: the last validation metrics, or None).\n"
               "config: a path to a run config (JSON) or a dict holding one (its run is named by its 'name', else\n"
               "  'run'); or resume='DIR' instead, to continue a run from its latest checkpoint.\n"
               "overrides: 'key.path=value' strings (as --set) or a dict {'key.path': value}.\n"
               "run_dir: where the run goes (default runs/<name>); init: start from these weights (.safetensors).\n"
               "on_step: called after every step with a dict: step, loss (the step's batch), lr, grad_norm, tokens,\n"
               "  and at an evaluation step valid_loss, valid_perplexity, valid_token_accuracy,\n"
               "  valid_sequence_accuracy. Returning False stops the run there (saved; 'stopped' is True).\n"
               "Ctrl-C (or interrupting the notebook's kernel) stops the run after the step it is in, saves it and\n"
               "raises KeyboardInterrupt; so does any exception the callback raises, which is raised again as it\n"
               "was. Either way the run continues with train(resume=run_dir).\n"
               "quiet=False prints the CLI's progress lines on the process's stderr (a terminal's, not a notebook's).\n"
               "The GIL is released while it trains, and taken back for each step's callback.");
}

}  // namespace tf::python
