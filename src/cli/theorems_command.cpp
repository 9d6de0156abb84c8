// `tapeformer theorems [--run DIR] [--seed N] [--json]`: measures every checkable statement of the
// attention theory (analysis/theorems.h) on random weights, and on a trained run's first attention
// layer, and prints one line each: the verdict next to the expected one, the statement, the numbers,
// and the docs/math/ section that explains it. Exit 0 when every statement came out as expected.
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/theorems.h"
#include "cli/commands.h"
#include "cli/reference_option.h"
#include "cli/seed_option.h"
#include "train/run_loader.h"

namespace tf::cli {

namespace {

struct TheoremsArguments {
    std::string run_dir;  // empty: random weights only
    uint64_t seed = 1;
    bool json = false;
    bool reference = false;
};

std::string verdict(bool holds) { return holds ? "holds" : "fails"; }

//  1. holds (expected: holds)  attention weights are … | random: … | docs/math/theory.md#…
std::string text_line(std::size_t number, const TheoremCheck& check) {
    return (number < 10 ? " " : "") + std::to_string(number) + ". " + verdict(check.holds) + " (expected: " +
           verdict(check.expected_to_hold) + ")" + (check.as_expected() ? "" : " UNEXPECTED") + "  " + check.statement +
           " | " + check.measured + " | " + check.math_ref;
}

std::string json_line(std::size_t number, const TheoremCheck& check) {
    return nlohmann::json{{"number", number},
                          {"statement", check.statement},
                          {"math_ref", check.math_ref},
                          {"measured", check.measured},
                          {"holds", check.holds},
                          {"expected_to_hold", check.expected_to_hold},
                          {"as_expected", check.as_expected()}}
        .dump();
}

int run_theorems_command(const TheoremsArguments& args) {
    std::optional<train::LoadedRun> run;
    if (!args.run_dir.empty()) run = train::load_run(args.run_dir, "best", train::RunData::vocabulary);
    const kernels::ReferenceKernels path(kernel_path(args.reference, run ? run->config.kernels : kernels::KernelPath::fast));
    const std::vector<TheoremCheck> checks = run_theorems({.seed = args.seed, .trained = run ? run->model.get() : nullptr});
    bool all_as_expected = true;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        std::cout << (args.json ? json_line(i + 1, checks[i]) : text_line(i + 1, checks[i])) << "\n";
        all_as_expected = all_as_expected && checks[i].as_expected();
    }
    return all_as_expected ? 0 : 1;
}

}  // namespace

void add_theorems_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<TheoremsArguments>();
    auto* command = app.add_subcommand(
        "theorems", "Check the statements of attention theory on random weights (and a trained run's): one line each.");
    command->add_option("--run", args->run_dir, "also check the first multi_head_attention of this run's best weights");
    add_seed_option(*command, args->seed, "seed of the random weights, inputs and samples")->capture_default_str();
    command->add_flag("--json", args->json, "one JSON object per line instead of text");
    add_reference_flag(*command, args->reference);
    command->footer("Exit 0 when every statement came out as expected (the PSD claim is expected to fail: it is false in\n"
                    "general), 1 otherwise, 2 for a bad run directory.\n"
                    "Examples:\n  tapeformer theorems\n  tapeformer theorems --run runs/copy_transformer --json");
    command->callback([args, &exit_code] { exit_code = run_theorems_command(*args); });
}

}  // namespace tf::cli
