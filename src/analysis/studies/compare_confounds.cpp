// The confound of each verdict, in words (analysis/studies/compare_confounds.h).
#include "analysis/studies/compare_confounds.h"

#include <algorithm>
#include <cmath>

#include "analysis/studies/compare_convergence.h"
#include "analysis/reports/report.h"

namespace tf {

namespace {

const RunMeasurements* run_of(const Runs& runs, const std::string& variant, int64_t seed) {
    for (const RunMeasurements& run : runs)
        if (run.variant == variant && run.seed == seed) return &run;
    return nullptr;
}

double smallest(const std::vector<double>& values) {
    return values.empty() ? NAN : *std::min_element(values.begin(), values.end());
}

struct NoiseAtLoss {
    double step = NAN, noise = NAN;
};

// The first logged window whose training loss is ≤ `loss`, and its ratio (the next window's when
// that one logged none: a window of one step has no spread).
NoiseAtLoss noise_at(const RunMeasurements& run, double loss) {
    for (std::size_t i = 0; i < run.losses.size(); ++i) {
        if (run.losses[i] > loss) continue;
        for (std::size_t k = 0; k < run.noise_steps.size(); ++k)
            if (run.noise_steps[k] >= run.loss_steps[i]) return {run.loss_steps[i], run.noises[k]};
        break;
    }
    return {};
}

std::string steps_text(const Runs& runs, const std::string& variant) {
    return format_count(mean_of(collect(runs, variant, &RunMeasurements::steps)));
}

std::string budget_and_size(const CompareConfig& config, const Runs& runs, const std::string& first, const std::string& second) {
    std::string text = "Budget: " + budget_text(config.budget) + ", ";
    const std::string first_steps = steps_text(runs, first);
    if (second.empty() || steps_text(runs, second) == first_steps)
        text += first_steps + " steps" + (second.empty() ? "" : " each") + ". ";
    else
        text += first + " trained " + first_steps + " steps, " + second + " " + steps_text(runs, second) + ". ";
    std::vector<std::string> improving, levelled;
    for (const std::string& variant : {first, second}) {
        if (variant.empty()) continue;
        const LateFall fall = mean_late_fall(runs, variant);
        (still_improving(fall) ? improving : levelled).push_back(variant + " " + late_fall_text(fall));
    }
    if (!improving.empty())
        text += "Still improving when training ended: " + improving.front() + (improving.size() > 1 ? "; " + improving.back() : "") + ". ";
    if (!levelled.empty()) text += "Levelled off: " + levelled.front() + (levelled.size() > 1 ? "; " + levelled.back() : "") + ". ";
    if (!second.empty()) {
        const double a = mean_of(collect(runs, first, &RunMeasurements::parameters));
        const double b = mean_of(collect(runs, second, &RunMeasurements::parameters));
        text += "Size: " + first + " has " + format_count(a) + " parameters, " + second + " " + format_count(b) + " (" +
                format_number(a / b, 3) + "×).";
    }
    return text;
}

std::string loss_level(const Runs& runs, const std::string& first, const std::string& second) {
    const double a = mean_of(collect(runs, first, &RunMeasurements::final_train_loss));
    if (second.empty())
        return "Its training loss at the last step was " + format_number(a, 3) + " nats per token; the ratio divides by the "
               "mean gradient, which shrinks as the loss falls.";
    const double b = mean_of(collect(runs, second, &RunMeasurements::final_train_loss));
    std::string text = "Training loss at the last step: " + first + " " + format_number(a, 3) + ", " + second + " " +
                       format_number(b, 3) + " nats per token (" + format_number(std::max(a, b) / std::min(a, b), 3) + "× apart). " +
                       "The ratio divides by the mean gradient ḡ, which is smaller at a lower loss, so at the same step it "
                       "compares models at different points of learning. ";
    const MatchedNoise matched = noise_at_matched_loss(runs, first, second);
    if (std::isnan(matched.ratio.mean) && matched.ratio.seeds == 0)
        return text + "At matched loss: not measurable (a run logged no noise-to-signal along training, or the two never "
                      "reached a common loss).";
    return text + "At matched training loss " + format_number(matched.loss, 3) + " (the lowest both reach; " + first +
           " at step " + format_count(matched.first_step) + ", " + second + " at step " + format_count(matched.second_step) +
           "): " + first + " / " + second + " = " + interval_text(matched.ratio, "%.3g×") + ".";
}

}  // namespace

MatchedNoise noise_at_matched_loss(const Runs& runs, const std::string& first, const std::string& second) {
    std::vector<double> losses, first_steps, second_steps, ratios;
    for (const RunMeasurements& a : runs) {
        if (a.variant != first) continue;
        const RunMeasurements* b = run_of(runs, second, a.seed);
        if (!b) continue;
        const double matched = std::max(smallest(a.losses), smallest(b->losses));   // L*
        const NoiseAtLoss at_a = noise_at(a, matched), at_b = noise_at(*b, matched);
        if (std::isnan(at_a.noise) || std::isnan(at_b.noise)) continue;
        losses.push_back(matched), first_steps.push_back(at_a.step), second_steps.push_back(at_b.step);
        ratios.push_back(at_a.noise / at_b.noise);
    }
    return {mean_of(losses), mean_of(first_steps), mean_of(second_steps), interval_95(ratios, kNonNegative)};
}

std::string confound_text(Confound confound, const CompareConfig& config, const Runs& runs, const std::string& first,
                          const std::string& second) {
    switch (confound) {
        case Confound::budget_and_size: return budget_and_size(config, runs, first, second);
        case Confound::loss_level: return loss_level(runs, first, second);
        case Confound::reach_not_use: {
            std::string text = "Reaching a position (its K(i, j) above 1 % of the row's largest) shows the gradient gets "
                               "there, not that the model uses it well: test token accuracy " + first + " " +
                               format_number(mean_of(collect(runs, first, &RunMeasurements::test, &train::EvalMetrics::token_accuracy)), 3);
            if (!second.empty())
                text += ", " + second + " " +
                        format_number(mean_of(collect(runs, second, &RunMeasurements::test, &train::EvalMetrics::token_accuracy)), 3);
            return text + ".";
        }
        case Confound::input_length: {
            const double length = mean_of(collect(runs, first, &RunMeasurements::input_length));
            return "Measured on inputs of " + format_number(length, 3) + " positions on average: a field cannot exceed its "
                   "input, so one near " + format_number(length, 3) + " may be the whole input and shows no limit; the length "
                   "sweep measures how error grows with length.";
        }
        case Confound::machine_load:
            return "A speed depends on what else the machine ran while each run trained (the runs train one after another).";
        case Confound::none: return "None: the config fixes it.";
    }
    return "";
}

}  // namespace tf
