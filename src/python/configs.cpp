// Run and comparison configs from Python (python/configs.h), and tapeformer.resolved_config,
// which is `tapeformer config print`.
#include "python/configs.h"

#include <pybind11/stl.h>

#include "config/json_file.h"
#include "python/bindings.h"
#include "python/json_python.h"

namespace tf::python {

namespace {

bool is_dict(const py::handle& config) { return py::isinstance<py::dict>(config); }

// os.fspath(config): a str, or the path an os.PathLike holds; TypeError for anything else.
std::string path_of(const py::handle& config) {
    return py::cast<std::string>(py::module_::import("os").attr("fspath")(config));
}

}  // namespace

std::vector<std::string> override_assignments(const py::handle& overrides) {
    if (overrides.is_none()) return {};
    std::vector<std::string> assignments;
    const auto refuse = [&](const py::handle& item) {
        return py::type_error("overrides: expected 'key.path=value' strings, or a dict {'key.path': value}; got " +
                              py::cast<std::string>(py::repr(item)));
    };
    if (is_dict(overrides)) {
        for (const auto& [key, value] : py::reinterpret_borrow<py::dict>(overrides)) {
            if (!py::isinstance<py::str>(key)) throw refuse(key);
            assignments.push_back(py::cast<std::string>(key) + "=" + json_from_python(value, "overrides").dump());
        }
        return assignments;
    }
    if (py::isinstance<py::str>(overrides)) throw refuse(overrides);   // a str is iterable, but one assignment is a list of one
    for (const py::handle& item : py::iter(overrides)) {
        if (!py::isinstance<py::str>(item)) throw refuse(item);
        assignments.push_back(py::cast<std::string>(item));
    }
    return assignments;
}

train::RunConfig run_config_from_python(const py::handle& config, const std::vector<std::string>& overrides) {
    if (is_dict(config)) return train::run_config_from_json(json_from_python(config, "config"), overrides, "run");
    return train::load_run_config(path_of(config), overrides);
}

CompareConfig compare_config_from_python(const py::handle& config, const std::vector<std::string>& overrides) {
    if (is_dict(config)) return compare_config_from_json(json_from_python(config, "config"), overrides, "comparison");
    return load_compare_config(path_of(config), overrides);
}

void add_configs(py::module_& module) {
    module.def(
        "resolved_config",
        [](const py::object& config, const py::object& overrides) {
            const std::vector<std::string> assignments = override_assignments(overrides);
            // A comparison config is one with "variants" (docs/experiments.md), as `config print` tells them apart.
            const config::Json root = is_dict(config) ? json_from_python(config, "config") : config::load_json_file(path_of(config));
            const bool comparison = root.is_object() && root.contains("variants");
            return to_python(comparison ? compare_config_from_python(config, assignments).resolved
                                        : run_config_from_python(config, assignments).resolved);
        },
        py::arg("config"), py::arg("overrides") = py::none(),
        "The config with every default filled in, as a dict: what `tapeformer config print CONFIG` prints.\n"
        "config: a path to a run or comparison config (JSON), or a dict holding one.\n"
        "overrides: a list of 'key.path=value' strings (as --set), or a dict {'key.path': value}.\n"
        "Raises tapeformer.ConfigError naming the first bad key, with the message `config check` prints.");
}

}  // namespace tf::python
