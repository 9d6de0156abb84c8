// Configs from Python: a path to a JSON file (str or os.PathLike), or a dict holding the same JSON;
// and overrides, each "key.path=value" as the CLI's --set takes it, or a dict {"key.path": value}.
// A dict goes through the same strict reader as a file (python/json_python.h), so an unknown key
// or a value out of range raises tapeformer.ConfigError with the message `config check` prints.
#pragma once
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "analysis/studies/compare_config.h"
#include "train/run_config.h"

namespace tf::python {

namespace py = pybind11;

// The overrides as --set assignments, in order: a list of "key=value" strings, or a dict whose
// values are written as JSON ({"train.max_steps": 300} is "train.max_steps=300").
std::vector<std::string> override_assignments(const py::handle& overrides);

// A run config (a dict's run is named by its "name", else "run").
train::RunConfig run_config_from_python(const py::handle& config, const std::vector<std::string>& overrides);
// A comparison config (a dict's comparison is named by its "name", else "comparison").
CompareConfig compare_config_from_python(const py::handle& config, const std::vector<std::string>& overrides);

}  // namespace tf::python
