// Progress lines on stderr.
#include "train/progress.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace tf::train {

Progress::Progress(int64_t total_steps, bool quiet)
    : total_steps_(total_steps), quiet_(quiet), terminal_(::isatty(STDERR_FILENO) != 0),
      started_(std::chrono::steady_clock::now()) {}

void Progress::update(int64_t step, double loss, double tokens_per_second, const EvalMetrics* valid) {
    if (quiet_) return;
    // The ETA extrapolates from the updates seen so far (the first one only starts the clock, so
    // start-up time — loading data, building the model — does not distort it).
    if (first_step_ < 0) first_step_ = step, started_ = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    char text[256];
    std::snprintf(text, sizeof text, "step %lld/%lld  loss %.4f  %.0f tok/s", static_cast<long long>(step),
                  static_cast<long long>(total_steps_), loss, tokens_per_second);
    std::string line = text;
    if (step > first_step_) {
        const auto eta = static_cast<long>(elapsed / static_cast<double>(step - first_step_) * static_cast<double>(total_steps_ - step));
        std::snprintf(text, sizeof text, "  ETA %ldm%02lds", eta / 60, eta % 60);
        line += text;
    }
    if (valid) {
        std::snprintf(text, sizeof text, "  | valid loss %.4f  token acc %.3f  seq acc %.3f", valid->loss,
                      valid->token_accuracy, valid->sequence_accuracy);
        line += text;
    }
    if (terminal_) {
        std::fprintf(stderr, "\r\033[K%s", line.c_str());
        line_open_ = true;
        if (valid) std::fprintf(stderr, "\n"), line_open_ = false;
    } else {
        std::fprintf(stderr, "%s\n", line.c_str());
    }
    std::fflush(stderr);
}

void Progress::message(const std::string& text) {
    if (quiet_) return;
    finish();
    std::fprintf(stderr, "%s\n", text.c_str());
}

void Progress::finish() {
    if (line_open_) std::fprintf(stderr, "\n");
    line_open_ = false;
}

}  // namespace tf::train
