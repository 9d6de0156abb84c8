// `tapeformer compare CONFIG [--set k=v]... [--run-dir DIR] [--figures DIR] [--dry-run]`: train the
// listed variants on the same data and budget and write runs/<name>/report.md, report.json and plots/
// (with --figures, each figure again at slide size); or, with --dry-run, list the runs and estimate
// their training time, writing nothing.
#include <filesystem>
#include <iostream>

#include "analysis/studies/compare.h"
#include "analysis/studies/compare_plan.h"
#include "autograd/error.h"
#include "cli/commands.h"
#include "cli/reference_option.h"
#include "distributed/communicator.h"
#include "util/files.h"
#include "util/stop_signals.h"

namespace tf::cli {

void add_compare_command(CLI::App& app, int& exit_code) {
    auto path = std::make_shared<std::string>();
    auto overrides = std::make_shared<std::vector<std::string>>();
    auto options = std::make_shared<CompareOptions>();
    auto reference = std::make_shared<bool>(false), dry_run = std::make_shared<bool>(false);
    auto* command = app.add_subcommand("compare", "Train model variants on the same data and budget and report what differs.");
    command->add_option("config", *path, "the comparison config (configs/compare_*.json)")->required();
    command->add_option("--set", *overrides, "override a value: --set train.max_steps=500 (repeatable)");
    command->add_option("--run-dir", options->out_dir, "where to write (default: runs/<name>)");
    command->add_flag("--quiet", options->quiet, "no progress output");
    command->add_option("--figures", options->figures_dir, "also write each figure of the report as DIR/<name>.svg "
                                                           "at slide size (1280 × 720, large fonts); DIR is created if missing");
    add_reference_flag(*command, *reference);
    command->add_flag("--dry-run", *dry_run, "list the runs and estimate their training time from a few timed steps; "
                                             "train nothing, write nothing");
    command->footer("The config lists at least two variants; an optional \"predictions\": {\"baseline\": RNN,\n"
                    "\"attention\": VARIANT} judges the predictions of docs/math/theory.md §7 on those two, and\n"
                    "\"predictions\": {\"own\": [...]} the config's own (docs/experiments.md, \"Your own predictions\").\n"
                    "Examples:\n  tapeformer compare configs/compare_recall.json\n"
                    "  tapeformer compare configs/compare_poetry.json --set seeds=[1,2,3]\n"
                    "  tapeformer compare configs/compare_recall.json --figures slides/recall\n"
                    "  tapeformer compare configs/compare_recall.json --dry-run");
    command->callback([=, &exit_code] {
        options->command = "tapeformer compare " + *path;
        for (const auto& assignment : *overrides) options->command += " --set " + assignment;
        if (!options->out_dir.empty()) options->command += " --run-dir " + options->out_dir;
        if (!options->figures_dir.empty()) {   // refused before any training, not after it
            std::error_code unreadable;   // (then make_directories names the problem)
            if (std::filesystem::exists(options->figures_dir, unreadable) && !std::filesystem::is_directory(options->figures_dir, unreadable))
                throw ConfigError("--figures " + options->figures_dir + ": that is a file, not a folder; name a folder "
                                  "for the slide figures (it is created if missing)");
            options->command += " --figures " + options->figures_dir;
        }
        if (*reference) {   // every run, saved with each
            overrides->push_back("kernels=reference");
            options->command += " --reference";
        }
        exit_code = 0;
        if (*dry_run) {
            const CompareConfig config = load_compare_config(*path, *overrides);
            const kernels::ReferenceKernels path_of_ops(config.kernels);
            std::cout << plan_text(plan_comparison(config, options->out_dir.empty() ? "runs/" + config.name : options->out_dir));
            return;
        }
        try {
            options->ranks = &distributed::world();
            const CompareConfig config = load_compare_config(*path, *overrides);
            if (!options->figures_dir.empty()) make_directories(options->figures_dir);   // one it cannot make fails now
            const std::string report = run_compare(config, *options);
            if (!report.empty()) std::cout << "report: " << report << "\n";   // after the runs' progress, not before it
        } catch (const CompareInterrupted& stopped) {
            std::cout << stopped.what() << "\n";
            exit_code = exit_status_after(stopped.signal_number);
        }
    });
}

}  // namespace tf::cli
