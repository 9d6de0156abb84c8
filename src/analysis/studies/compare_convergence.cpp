// Whether a run was still improving when training ended (analysis/studies/compare_convergence.h).
#include "analysis/studies/compare_convergence.h"

#include <cmath>
#include <cstdio>

#include "analysis/reports/report.h"

namespace tf {

namespace {

// The mean of the logged training losses whose steps lie in (from·S, to·S], S the last logged step.
double mean_loss_between(const RunMeasurements& run, double from, double to) {
    std::vector<double> losses;
    const double last = run.loss_steps.back();
    for (std::size_t i = 0; i < run.losses.size(); ++i)
        if (run.loss_steps[i] > from * last && run.loss_steps[i] <= to * last) losses.push_back(run.losses[i]);
    return losses.empty() ? NAN : mean_of(losses);
}

}  // namespace

LateFall late_fall(const RunMeasurements& run) {
    const std::size_t evaluations = run.valid_losses.size();
    if (evaluations >= 2 && run.valid_steps.size() == evaluations) {
        const double before = run.valid_losses[evaluations - 2], after = run.valid_losses[evaluations - 1];
        return {(before - after) / before, run.valid_steps[evaluations - 1] - run.valid_steps[evaluations - 2], true};
    }
    if (run.loss_steps.empty()) return {NAN, 0, false};
    const double before = mean_loss_between(run, 0.8, 0.9), after = mean_loss_between(run, 0.9, 1.0);
    return {(before - after) / before, 0.1 * run.loss_steps.back(), false};
}

LateFall mean_late_fall(const Runs& runs, const std::string& variant) {
    std::vector<double> shares, spans;
    bool validation = true;
    for (const RunMeasurements& run : runs) {
        if (run.variant != variant) continue;
        const LateFall fall = late_fall(run);
        shares.push_back(fall.share), spans.push_back(fall.over_steps);
        validation = validation && fall.validation;
    }
    return {mean_of(shares), mean_of(spans), validation && !shares.empty()};
}

bool still_improving(const LateFall& fall) { return fall.share > kStillImprovingFall; }

std::string late_fall_text(const LateFall& fall) {
    if (std::isnan(fall.share)) return "not measurable (too few logged losses)";
    char text[128];
    std::snprintf(text, sizeof text, "%s%.0f %% over its last %s steps (%s loss)", fall.share >= 0 ? "−" : "+",
                  std::abs(fall.share) * 100, format_count(fall.over_steps).c_str(), fall.validation ? "validation" : "training");
    return text;
}

}  // namespace tf
