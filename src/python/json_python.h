// JSON values (what the library's reports, metrics and configs are made of) as Python objects, and
// Python config dicts as JSON.
#pragma once
#include <string>

#include <pybind11/pybind11.h>

#include "config/json_reader.h"

namespace tf::python {

namespace py = pybind11;

// null → None, true/false → bool, integers → int, other numbers → float, strings → str, arrays →
// list, objects → dict (keys in the JSON's order).
py::object to_python(const config::Json& value);

// A config given as a Python dict, written as JSON by Python's json.dumps (allow_nan=False: NaN and
// infinity are not JSON, and json.dumps refuses them and whatever else is not JSON with its own
// TypeError or ValueError), then read by the bounded reader a config file goes through
// (config/json_file.h), so the library's checks and their messages are the same as for a file.
config::Json json_from_python(const py::handle& value, const std::string& source_name);

// A JSON file the library wrote (a report's data: analysis.json, report.json), read within the
// bounds of config/json_text.h but without a config's size limit.
config::Json read_report_json(const std::string& path);

}  // namespace tf::python
