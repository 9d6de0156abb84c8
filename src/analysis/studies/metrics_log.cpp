// metrics.jsonl, one row at a time.
#include "analysis/studies/metrics_log.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "util/files.h"

namespace tf {

void read_curve(const std::string& path, const std::string& key, std::vector<double>& steps, std::vector<double>& values) {
    std::istringstream in(read_file(path));   // refuses a FIFO in the log's place instead of waiting on it
    std::string line;
    while (std::getline(in, line)) {
        const auto row = nlohmann::json::parse(line, nullptr, false);
        if (!row.is_object() || !row.contains(key) || !row[key].is_number() || !row.contains("step") || !row["step"].is_number())
            continue;
        steps.push_back(row["step"].get<double>());
        values.push_back(row[key].get<double>());
    }
}

}  // namespace tf
