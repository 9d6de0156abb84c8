// Run directory bookkeeping.
#include "train/run_dir.h"

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/files.h"

namespace tf::train {

std::string RunDirectory::latest() const {
    const std::string pointer = checkpoints() + "/latest";
    if (!file_exists(pointer)) return "";
    std::string name = read_file(pointer);
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    return checkpoints() + "/" + name;
}

void RunDirectory::set_latest(int64_t step) const {
    write_file_atomic(checkpoints() + "/latest", "step-" + std::to_string(step) + ".safetensors\n");
}

bool RunDirectory::has_run() const { return !latest().empty(); }

void RunDirectory::prune_checkpoints(int64_t keep) const {
    std::vector<std::pair<int64_t, std::string>> steps;
    for (const auto& entry : std::filesystem::directory_iterator(checkpoints())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("step-", 0) != 0 || entry.path().extension() != ".safetensors") continue;
        const std::string digits = entry.path().stem().string().substr(5);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;   // not ours
        steps.emplace_back(std::stoll(digits), entry.path().string());
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
        const auto parsed = nlohmann::json::parse(line, nullptr, false);
        if (parsed.is_object() && parsed.value("step", int64_t{0}) <= step) kept += line + "\n";
    }
    write_file_atomic(metrics(), kept);
}

}  // namespace tf::train
