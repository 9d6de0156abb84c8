// A comparison's budget: what its "budget" key holds equal, written into every run's train section
// (equal FLOPs as steps in proportion to each variant's cost per step), refused when it names none
// or two; a comparison trained until each validation loss stopped improving says so; and runs saved
// before a train key existed are still reused.
#include "catch.h"

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_budget.h"
#include "analysis/studies/compare_runs.h"
#include "run_helpers.h"
#include "tiny_comparison.h"
#include "util/files.h"

using namespace tf;

namespace {

std::vector<PlannedRun> plan_with(const std::string& budget) {
    return plan_runs(load_compare_config(test::kTinyComparisonPath, {"budget=" + budget}), "runs");
}

const PlannedRun& first_of(const std::vector<PlannedRun>& plan, const std::string& variant) {
    for (const PlannedRun& run : plan)
        if (run.variant == variant) return run;
    FAIL("no run of " << variant);
    return plan.front();
}

}  // namespace

TEST_CASE("a budget names exactly one of steps, minutes, flops and until_plateau", "[unit]") {
    const auto load = [](const std::string& budget) { return load_compare_config(test::kTinyComparisonPath, {"budget=" + budget}); };
    CHECK_THROWS_WITH(load("{}"), Catch::Contains("budget: expected exactly one of \"steps\", \"minutes\", \"flops\" or \"until_plateau\""));
    CHECK_THROWS_WITH(load(R"({"steps": 5, "minutes": 1})"), Catch::Contains("got 2"));
    CHECK_THROWS_WITH(load(R"({"minutes": 0})"), Catch::Contains("budget.minutes"));
    CHECK_THROWS_WITH(load(R"({"epochs": 3})"), Catch::Contains("epochs"));
    CHECK(load(R"({"until_plateau": 2})").budget.kind == BudgetKind::until_plateau);
}

TEST_CASE("each budget is written into every run's train section, max_steps staying the cap", "[unit]") {
    for (const PlannedRun& run : plan_with(R"({"steps": 9})")) CHECK(run.config.train.max_steps == 9);
    for (const PlannedRun& run : plan_with(R"({"minutes": 1.5})")) {
        CHECK(run.config.train.max_minutes == 1.5);
        CHECK(run.config.train.max_steps == 6);
    }
    for (const PlannedRun& run : plan_with(R"({"until_plateau": 2})")) {
        CHECK(run.config.train.patience == 2);
        CHECK(run.config.train.max_steps == 6);
    }
}

TEST_CASE("equal FLOPs give each variant the steps its cost per step affords", "[unit]") {
    const std::vector<PlannedRun> steps = plan_with(R"({"steps": 6})");
    const double gru = training_flops_per_step(first_of(steps, "gru").config);
    const double transformer = training_flops_per_step(first_of(steps, "transformer").config);
    REQUIRE(gru > 0);
    REQUIRE(transformer > 0);
    // A budget of 40 GRU steps: the GRU gets 40, the transformer ⌊40·gru / transformer⌋.
    const std::vector<PlannedRun> flops = plan_with("{\"flops\": " + std::to_string(40.5 * gru) + "}");
    CHECK(first_of(flops, "gru").config.train.max_steps == 40);
    CHECK(first_of(flops, "transformer").config.train.max_steps == static_cast<int64_t>(std::floor(40.5 * gru / transformer)));
    CHECK(first_of(flops, "transformer").config.train.max_steps != 40);
}

TEST_CASE("a comparison trained until each validation loss stopped improving says so, and old runs are reused", "[integration]") {
    test::TempDir dir;
    const std::string out = dir / "plateau";
    const test::CliResult first = test::run_cli({"compare", test::kTinyComparisonPath, "--run-dir", out, "--quiet", "--set",
                                                 R"(budget={"until_plateau": 1})", "--set", "train.max_steps=30"});
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const std::string report = read_file(out + "/report.md");
    CHECK(report.find("> **Findings**") != std::string::npos);
    CHECK(report.find("each until its validation loss stopped improving (1 evaluations without a lower one)") != std::string::npos);
    CHECK(report.find("(cap 30)") != std::string::npos);

    // A run saved before train.patience existed has no such key in its config: it is the default, 0.
    const std::string run_config = out + "/runs/gru-seed1/config.resolved.json";
    nlohmann::json saved = nlohmann::json::parse(read_file(run_config));
    REQUIRE(saved["train"]["patience"] == 1);
    const test::CliResult plain = test::run_cli({"compare", test::kTinyComparisonPath, "--run-dir", dir / "plain", "--quiet"});
    REQUIRE(plain.exit_code == 0);
    const std::string old_config = dir / "plain/runs/gru-seed1/config.resolved.json";
    saved = nlohmann::json::parse(read_file(old_config));
    saved["train"].erase("patience");
    write_file_atomic(old_config, saved.dump(2) + "\n");
    const std::string metrics_before = read_file(dir / "plain/runs/gru-seed1/metrics.jsonl");
    const test::CliResult again = test::run_cli({"compare", test::kTinyComparisonPath, "--run-dir", dir / "plain", "--quiet"});
    INFO(again.err);
    CHECK(again.exit_code == 0);
    CHECK(read_file(dir / "plain/runs/gru-seed1/metrics.jsonl") == metrics_before);
}
