// The progress display: on a terminal one line rewritten in place (step, loss, tokens/s, ETA);
// otherwise — a log file, CI — plain lines, one per logged step.
#pragma once
#include <chrono>
#include <string>

#include "train/metrics.h"

namespace tf::train {

class Progress {
public:
    Progress(int64_t total_steps, bool quiet);
    void update(int64_t step, double loss, double tokens_per_second, const EvalMetrics* valid);
    void message(const std::string& text);
    void finish();

private:
    int64_t total_steps_;
    bool quiet_, terminal_, line_open_ = false;
    std::chrono::steady_clock::time_point started_;
    int64_t first_step_ = -1;
};

}  // namespace tf::train
