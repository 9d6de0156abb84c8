// `tapeformer config check CONFIG` (validate the config and load its data, writing nothing) and
// `tapeformer config print CONFIG` (the resolved config, every default filled in).
#include <iostream>

#include "cli/commands.h"
#include "train/run_config.h"

namespace tf::cli {

void add_config_command(CLI::App& app, int& exit_code) {
    auto* command = app.add_subcommand("config", "Validate a run config, or print it resolved.");
    command->require_subcommand(1);
    for (const std::string verb : {"check", "print"}) {
        auto path = std::make_shared<std::string>();
        auto overrides = std::make_shared<std::vector<std::string>>();
        auto* sub = command->add_subcommand(verb, verb == "check" ? "Validate CONFIG and load its data; exit 2 naming the first problem."
                                                                  : "Print CONFIG with every default filled in.");
        sub->add_option("config", *path, "the run config")->required();
        sub->add_option("--set", *overrides, "override a value: --set model.heads=8 (repeatable)");
        sub->callback([=, &exit_code] {
            const train::RunConfig config = train::load_run_config(*path, *overrides);
            // The data as train would load it: a bad line, or an example longer than the model's
            // positions, is found here rather than after train has made the run directory.
            if (verb == "check") train::load_dataset(config.data);
            if (verb == "print") std::cout << config.resolved.dump(2) << "\n";
            else std::cout << *path << ": ok\n";
            exit_code = 0;
        });
    }
}

}  // namespace tf::cli
