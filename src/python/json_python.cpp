// JSON <-> Python (python/json_python.h).
#include "python/json_python.h"

#include "config/json_file.h"
#include "config/json_text.h"
#include "util/files.h"

namespace tf::python {

py::object to_python(const config::Json& value) {
    switch (value.type()) {
        case config::Json::value_t::null: return py::none();
        case config::Json::value_t::boolean: return py::bool_(value.get<bool>());
        case config::Json::value_t::number_integer: return py::int_(value.get<int64_t>());
        case config::Json::value_t::number_unsigned: return py::int_(value.get<uint64_t>());
        case config::Json::value_t::number_float: return py::float_(value.get<double>());
        case config::Json::value_t::string: return py::str(value.get_ref<const std::string&>());
        case config::Json::value_t::array: {
            py::list list;
            for (const auto& item : value) list.append(to_python(item));
            return list;
        }
        case config::Json::value_t::object: {
            py::dict dict;
            for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
            return dict;
        }
        default: return py::none();   // binary and discarded values: never in what the library writes
    }
}

config::Json json_from_python(const py::handle& value, const std::string& source_name) {
    const py::object dumps = py::module_::import("json").attr("dumps");
    const std::string text = py::cast<std::string>(dumps(value, py::arg("allow_nan") = false));
    return config::parse_json_text(text, source_name);
}

config::Json read_report_json(const std::string& path) {
    config::JsonParse parsed = config::parse_json_bounded(read_file(path));
    if (!parsed.ok()) throw DataError(path + ": " + parsed.problem);
    return std::move(parsed.value);
}

}  // namespace tf::python
