// Run directory bookkeeping.
#include "train/run_dir.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <cstdint>
#include <vector>

#include "autograd/error.h"
#include "config/json_text.h"
#include "util/files.h"

namespace tf::train {

namespace {
// The longest pointer set_latest writes: "step-" + 19 digits + ".safetensors\n".
constexpr std::size_t kMaxLatestBytes = 64;

// The step in "step-<digits>.safetensors", or -1 when `name` is not one of ours or the number
// does not fit an int64.
int64_t step_of(const std::string& name) {
    const std::string prefix = "step-", suffix = ".safetensors";
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) return -1;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
    const unsigned long long step = std::stoull(digits);   // 19 digits fit in 64 bits
    return step > INT64_MAX ? -1 : static_cast<int64_t>(step);
}
}  // namespace

std::string RunDirectory::latest() const {
    const std::string pointer = checkpoints() + "/latest";
    if (!file_exists(pointer)) return "";
    if (const std::string problem = input_file_problem(pointer, kMaxLatestBytes); !problem.empty())
        throw CheckpointError(pointer + ": " + problem);
    std::string name = read_file(pointer);
    if (!name.empty() && name.back() == '\n') name.pop_back();
    if (step_of(name) < 0)
        throw CheckpointError(pointer + ": expected the newest checkpoint's name, step-N.safetensors, got " +
                              config::describe(config::Json(name)));
    return checkpoints() + "/" + name;
}

void RunDirectory::require_directory(const std::string& option, Existing existing) const {
    std::error_code error;
    const auto status = std::filesystem::status(root_, error);
    if (status.type() == std::filesystem::file_type::not_found) {
        if (existing == Existing::required) throw ConfigError(option + " " + root_ + ": no such directory");
        return;
    }
    if (error) throw ConfigError(option + " " + root_ + ": cannot read it: " + error.message());
    if (status.type() != std::filesystem::file_type::directory)
        throw ConfigError(option + " " + root_ + ": is a file, not a run directory");
}

void RunDirectory::set_latest(int64_t step) const {
    write_file_atomic(checkpoints() + "/latest", "step-" + std::to_string(step) + ".safetensors\n");
}

bool RunDirectory::has_run() const { return !latest().empty(); }

void RunDirectory::prune_checkpoints(int64_t keep) const {
    std::vector<std::pair<int64_t, std::string>> steps;
    for (const auto& entry : std::filesystem::directory_iterator(checkpoints())) {
        const int64_t step = step_of(entry.path().filename().string());
        if (step >= 0) steps.emplace_back(step, entry.path().string());   // other names are not ours
    }
    std::sort(steps.rbegin(), steps.rend());
    // Never the one `latest` names: a kill between a save and set_latest can leave a newer step file.
    const std::string keep_always = latest();
    for (std::size_t i = static_cast<std::size_t>(keep); i < steps.size(); ++i)
        if (steps[i].second != keep_always) std::filesystem::remove(steps[i].second);
}

void RunDirectory::truncate_metrics(int64_t step) const {
    if (!file_exists(metrics())) return;
    std::istringstream lines(read_file(metrics()));
    std::string kept, line;
    while (std::getline(lines, line)) {
        const config::JsonParse row = config::parse_json_bounded(line);
        const bool later = row.ok() && row.value.is_object() && row.value.contains("step") &&
                           row.value["step"].is_number_integer() && row.value["step"].get<int64_t>() > step;
        if (!later) kept += line + "\n";
    }
    write_file_atomic(metrics(), kept);
}

}  // namespace tf::train
