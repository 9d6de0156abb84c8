// Checking that a name is one plain path component.
#include "train/run_name.h"

#include "config/utf8.h"

namespace tf::train {

std::string run_name_problem(const std::string& name) {
    if (name.empty()) return "it is empty";
    if (name == "." || name == "..") return "\"" + name + "\" is not a directory of its own";
    if (name.find('/') != std::string::npos) return "it contains '/'";
    if (name.find('\0') != std::string::npos) return "it contains a NUL byte";
    if (const auto bad = config::first_invalid_utf8(name)) return "byte " + std::to_string(*bad) + " is not UTF-8";
    if (name.size() > kMaxRunNameBytes)
        return "it is " + std::to_string(name.size()) + " bytes, above the limit of " + std::to_string(kMaxRunNameBytes);
    return "";
}

}  // namespace tf::train
