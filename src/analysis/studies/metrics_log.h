// Reading a run's metrics.jsonl back: one logged quantity along training, as the reports plot it.
#pragma once
#include <string>
#include <vector>

namespace tf {

// The (step, value) pairs of `key` in the metrics log at `path`, in the log's order: the rows that
// hold `key` as a number (a row without it, or a line that is not JSON, is passed over).
void read_curve(const std::string& path, const std::string& key, std::vector<double>& steps, std::vector<double>& values);

}  // namespace tf
