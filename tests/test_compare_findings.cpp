// The findings box and the confounds, on runs whose numbers are made up so that every sentence can
// be checked against a hand-computed value: the ranking and who beat whom seed by seed, a run still
// improving (from its validation loss, or its training loss when it was evaluated once), and the
// gradient's noise-to-signal read at matched training loss.
#include "catch.h"

#include <cmath>

#include "analysis/studies/compare_confounds.h"
#include "analysis/studies/compare_convergence.h"
#include "analysis/studies/compare_findings.h"

using namespace tf;

namespace {

// One run: test token accuracy, and validation losses at steps 100, 200, 300.
RunMeasurements run(const std::string& variant, int64_t seed, double accuracy, std::vector<double> valid_losses) {
    RunMeasurements m;
    m.variant = variant, m.seed = seed;
    m.test.token_accuracy = accuracy;
    m.valid_losses = std::move(valid_losses);
    for (std::size_t i = 0; i < m.valid_losses.size(); ++i) m.valid_steps.push_back(100.0 * static_cast<double>(i + 1));
    m.steps = m.max_steps = 300;
    m.parameters = variant == "big" ? 2000 : 1000;
    for (int step = 10; step <= 300; step += 10) m.loss_steps.push_back(step), m.losses.push_back(1.0);
    return m;
}

CompareConfig config_of(const std::vector<std::string>& names, std::vector<int64_t> seeds) {
    CompareConfig config;
    config.seeds = std::move(seeds);
    for (const std::string& name : names) config.variants.push_back({name, {}, {}, {}});
    return config;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    return text;
}

}  // namespace

TEST_CASE("a run's late fall: its validation loss between the last two evaluations, else its training loss's last tenths",
          "[unit][findings]") {
    // (2.0 − 1.6) / 2.0 = 20 % over the 100 steps from 200 to 300
    const LateFall validated = late_fall(run("a", 1, 0.5, {3.0, 2.0, 1.6}));
    CHECK(validated.share == Approx(0.2));
    CHECK(validated.over_steps == 100);
    CHECK(validated.validation);
    CHECK(still_improving(validated));
    CHECK(late_fall_text(validated) == "−20 % over its last 100 steps (validation loss)");

    // Evaluated once: the logged training loss, mean over steps (240, 270] = 1.0 against (270, 300] = 0.97.
    RunMeasurements once = run("a", 1, 0.5, {2.0});
    for (std::size_t i = 0; i < once.losses.size(); ++i)
        if (once.loss_steps[i] > 270) once.losses[i] = 0.97;
    const LateFall trained = late_fall(once);
    CHECK(trained.share == Approx(0.03));
    CHECK(trained.over_steps == Approx(30));
    CHECK_FALSE(trained.validation);
    CHECK_FALSE(still_improving(trained));   // 3 % is under the 5 % line
}

TEST_CASE("the findings rank the variants, say who beat whom on every seed, and name the runs still improving behind",
          "[unit][findings]") {
    const CompareConfig config = config_of({"small", "big", "slow"}, {1, 2, 3});
    // big leads on every seed; slow beats small on 2 of 3; slow's loss still falls 20 %, small's 1 %.
    const Runs runs = {run("small", 1, 0.50, {1.2, 1.01, 1.0}), run("small", 2, 0.52, {1.2, 1.01, 1.0}), run("small", 3, 0.60, {1.2, 1.01, 1.0}),
                       run("big", 1, 0.90, {1.0, 0.5, 0.49}),   run("big", 2, 0.91, {1.0, 0.5, 0.49}),   run("big", 3, 0.92, {1.0, 0.5, 0.49}),
                       run("slow", 1, 0.55, {3.0, 2.0, 1.6}),   run("slow", 2, 0.56, {3.0, 2.0, 1.6}),   run("slow", 3, 0.50, {3.0, 2.0, 1.6})};
    const std::string text = joined(findings(config, runs, {}, {}));
    INFO(text);
    // mean accuracies: big 0.91, small 0.54, slow 0.5367
    CHECK(text.find("big 0.91, small 0.54, slow 0.537.") != std::string::npos);
    CHECK(text.find("on every seed: big over small on 3 of 3.") != std::string::npos);
    CHECK(text.find("Not on every seed, so their order is not settled: small over slow on 1 of 3.") != std::string::npos);
    CHECK(text.find("**Budget**: equal steps. Every run trained 300 steps.") != std::string::npos);
    CHECK(text.find("slow −20 % over its last 100 steps (validation loss)") != std::string::npos);
    CHECK(text.find("slow ranks below big while still improving: at this budget it may not have lost, only not finished.") !=
          std::string::npos);
    CHECK(text.find("\"until_plateau\"") != std::string::npos);
    CHECK(text.find("small −") == std::string::npos);   // 1 % is not still improving
    CHECK(text.find("**Verdicts**") == std::string::npos);   // none judged

    // Every loss levelled off: the box says so instead.
    const Runs settled = {run("small", 1, 0.5, {1.2, 1.0, 0.99}), run("big", 1, 0.9, {1.0, 0.5, 0.49}), run("slow", 1, 0.4, {2, 1.7, 1.69})};
    CHECK(joined(findings(config_of({"small", "big", "slow"}, {1}), settled, {}, {})).find("**Converged**") != std::string::npos);
}

TEST_CASE("a budget of steps per variant shows each variant's steps and the cap", "[unit][findings]") {
    CompareConfig config = config_of({"a", "b"}, {1});
    config.budget = {BudgetKind::until_plateau, 3};
    RunMeasurements a = run("a", 1, 0.9, {1.0, 0.9, 0.89}), b = run("b", 1, 0.8, {1.0, 0.99, 0.99});
    a.steps = 1200, a.max_steps = b.max_steps = 2000, b.steps = 600;
    const std::string text = joined(findings(config, {a, b}, {}, {}));
    INFO(text);
    CHECK(text.find("each until its validation loss stopped improving (3 evaluations without a lower one)") != std::string::npos);
    CHECK(text.find("Steps trained (mean over seeds): a 1,200, b 600 (cap 2,000).") != std::string::npos);
}

TEST_CASE("noise-to-signal at matched loss reads each run where its training loss first reaches the lowest both reach",
          "[unit][findings]") {
    // a: losses 3, 2, 1.5 at steps 10, 20, 30, ratio 1, 2, 4; b: losses 2.5, 1, 0.5, ratio 10, 20, 40.
    // L* = max(1.5, 0.5) = 1.5: a at step 30 (4), b at step 20 (20): a / b = 0.2.
    RunMeasurements a = run("a", 1, 0.9, {}), b = run("b", 1, 0.8, {});
    a.loss_steps = b.loss_steps = a.noise_steps = b.noise_steps = {10, 20, 30};
    a.losses = {3, 2, 1.5}, a.noises = {1, 2, 4};
    b.losses = {2.5, 1, 0.5}, b.noises = {10, 20, 40};
    const MatchedNoise matched = noise_at_matched_loss({a, b}, "a", "b");
    CHECK(matched.loss == 1.5);
    CHECK(matched.first_step == 30);
    CHECK(matched.second_step == 20);
    CHECK(matched.ratio.mean == Approx(0.2));
    CHECK(matched.ratio.seeds == 1);

    // The confound's words carry both final losses and the matched ratio.
    a.final_train_loss = 1.5, b.final_train_loss = 0.5;
    const std::string text = confound_text(Confound::loss_level, config_of({"a", "b"}, {1}), {a, b}, "a", "b");
    INFO(text);
    CHECK(text.find("Training loss at the last step: a 1.5, b 0.5 nats per token (3× apart)") != std::string::npos);
    CHECK(text.find("At matched training loss 1.5 (the lowest both reach; a at step 30, b at step 20): a / b = 0.2×") != std::string::npos);

    // Runs trained before the ratio was logged: not measurable, said so.
    a.noises.clear(), a.noise_steps.clear();
    CHECK(confound_text(Confound::loss_level, config_of({"a", "b"}, {1}), {a, b}, "a", "b").find("At matched loss: not measurable") !=
          std::string::npos);
}

TEST_CASE("every measure's confound is in words, naming the variants it compares", "[unit][findings]") {
    const CompareConfig config = config_of({"big", "small"}, {1});
    RunMeasurements big = run("big", 1, 0.9, {1.0, 0.9, 0.89}), small = run("small", 1, 0.5, {1.0, 0.99, 0.99});
    big.input_length = small.input_length = 25;
    for (const RunMeasure& measure : run_measures()) {
        INFO(measure.name);
        const std::string text = confound_text(measure.confound, config, {big, small}, "big", "small");
        CHECK(text.size() > 20);
        CHECK(text.back() == '.');
    }
    CHECK(confound_text(Confound::budget_and_size, config, {big, small}, "big", "small")
              .find("Size: big has 2,000 parameters, small 1,000 (2×).") != std::string::npos);
    CHECK(confound_text(Confound::input_length, config, {big, small}, "big", "").find("inputs of 25 positions") != std::string::npos);
}
