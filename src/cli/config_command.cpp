// `tapeformer config check CONFIG` (validate the config and load its data, writing nothing) and
// `tapeformer config print CONFIG` (the resolved config, every default filled in). CONFIG is a run
// config, or a comparison config (one with "variants", docs/experiments.md), which is checked as
// `compare` would check it before training: every variant's run config, and its predictions.
#include <iostream>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/compare_runs.h"
#include "cli/commands.h"
#include "config/json_file.h"
#include "train/run_config.h"

namespace tf::cli {

namespace {

bool is_comparison_config(const std::string& path) {
    const config::Json root = config::load_json_file(path);
    return root.is_object() && root.contains("variants");
}

// The config as `verb` reads it; returns its resolved form.
config::Json read_run_config(const std::string& verb, const std::string& path, const std::vector<std::string>& overrides) {
    const train::RunConfig config = train::load_run_config(path, overrides);
    // The data as train would load it: a bad line, or an example longer than the model's
    // positions, is found here rather than after train has made the run directory.
    if (verb == "check") train::load_dataset(config.data);
    return config.resolved;
}

config::Json read_comparison_config(const std::string& verb, const std::string& path, const std::vector<std::string>& overrides) {
    const CompareConfig compare = load_compare_config(path, overrides);
    if (verb == "check")
        // Every run's config, as `compare` plans them (nothing is written); then each variant's data
        // once, at the first seed, since a variant's model decides which examples fit.
        for (const PlannedRun& run : plan_runs(compare, "runs/" + compare.name + "/runs"))
            if (run.seed == compare.seeds.front()) train::load_dataset(run.config.data);
    return compare.resolved;
}

}  // namespace

void add_config_command(CLI::App& app, int& exit_code) {
    auto* command = app.add_subcommand("config", "Validate a run or comparison config, or print it resolved.");
    command->require_subcommand(1);
    for (const std::string verb : {"check", "print"}) {
        auto path = std::make_shared<std::string>();
        auto overrides = std::make_shared<std::vector<std::string>>();
        auto* sub = command->add_subcommand(verb, verb == "check" ? "Validate CONFIG and load its data; exit 2 naming the first problem."
                                                                  : "Print CONFIG with every default filled in.");
        sub->add_option("config", *path, "the run config, or a comparison config (one with \"variants\")")->required();
        sub->add_option("--set", *overrides, "override a value: --set model.heads=8 (repeatable)");
        sub->callback([=, &exit_code] {
            const config::Json resolved = is_comparison_config(*path) ? read_comparison_config(verb, *path, *overrides)
                                                                      : read_run_config(verb, *path, *overrides);
            if (verb == "print") std::cout << resolved.dump(2) << "\n";
            else std::cout << *path << ": ok\n";
            exit_code = 0;
        });
    }
}

}  // namespace tf::cli
