// `tapeformer collect DIR... --out DIR [--allow KEY]...`: students' runs or comparisons of one
// assignment in one report — scores, curves side by side, where each was trained (analysis/studies/collect.h).
#include <iostream>

#include "analysis/studies/collect.h"
#include "cli/commands.h"

namespace tf::cli {

void add_collect_command(CLI::App& app, int& exit_code) {
    auto options = std::make_shared<CollectOptions>();
    auto* command = app.add_subcommand("collect", "Gather submissions of one assignment (runs or comparisons) into one report.");
    command->add_option("submissions", options->submissions, "run directories (train) or comparison folders (compare)")->required();
    command->add_option("--out", options->out_dir, "the folder for report.md, report.html and report.json (new, empty, or an "
                                                   "earlier collect's; outside every submission)")->required();
    command->add_option("--allow", options->allowed_keys,
                        "a config key that may differ between submissions, with every key under it: --allow seed, "
                        "--allow model.d_model (repeatable; name and threads always may)");
    command->footer("Submissions must be of one kind and share one config (but for the allowed keys) and their data;\n"
                    "otherwise collect exits 2 naming the first keys that differ and the submissions.\n"
                    "Examples:\n  tapeformer collect submissions/*/runs/copy_transformer --out graded/copy\n"
                    "  tapeformer collect alice/run bob/run --allow seed --out graded/seeds");
    command->callback([options, &exit_code] {
        options->command = "tapeformer collect";
        for (const std::string& dir : options->submissions) options->command += " " + dir;
        for (const std::string& key : options->allowed_keys) options->command += " --allow " + key;
        options->command += " --out " + options->out_dir;
        const std::string report = run_collect(*options);   // before any output: a refusal prints its error alone
        std::cout << "report: " << report << "\n";
        exit_code = 0;
    });
}

}  // namespace tf::cli
