// `tapeformer theorems [--run DIR] [--seed N] [--verbose] [--json]`: measures every checkable
// statement of the attention theory (analysis/theorems/theorems.h) on random weights, and on a trained run's
// first attention layer, and prints one short line each: the verdict, a short statement and its key
// number. --verbose gives the whole statement, every number and the docs/math/ section that explains
// it. Exit 0 when every statement came out as expected.
#include <iostream>
#include <optional>

#include "analysis/theorems/theorems.h"
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
    bool verbose = false;
    bool reference = false;
};

std::string verdict(bool holds) { return holds ? "holds" : "fails"; }

// " 1. " … "13. "
std::string numbered(std::size_t number) { return (number < 10 ? " " : "") + std::to_string(number) + ". "; }

// Characters, not bytes: a UTF-8 continuation byte (10xxxxxx) starts none.
std::size_t characters(const std::string& text) {
    std::size_t count = 0;
    for (const char byte : text) count += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
    return count;
}

// The short statements are at most this wide, so the key numbers line up in one column.
constexpr std::size_t kShortStatementWidth = 45;

//  1. holds  attention weights ≥ 0, each row sums to 1     max |Σα − 1| = 2.2e-16
std::string short_line(std::size_t number, const TheoremCheck& check) {
    const std::size_t width = characters(check.short_statement);
    const std::string padding(width < kShortStatementWidth ? kShortStatementWidth - width : 0, ' ');
    return numbered(number) + verdict(check.holds) + (check.as_expected() ? "" : " UNEXPECTED") + "  " +
           check.short_statement + padding + "  " + check.key_number;
}

//  1. holds (expected: holds)  attention weights are … | random: … | docs/math/theory.md#…
std::string verbose_line(std::size_t number, const TheoremCheck& check) {
    return numbered(number) + verdict(check.holds) + " (expected: " + verdict(check.expected_to_hold) + ")" +
           (check.as_expected() ? "" : " UNEXPECTED") + "  " + check.statement + " | " + check.measured + " | " + check.math_ref;
}

// What was measured, and which statements are expected to fail (said once, not on every line).
std::string header(const std::vector<TheoremCheck>& checks, const TheoremsArguments& args) {
    std::string text = std::to_string(checks.size()) + " statements of attention theory, on random weights" +
                       (args.run_dir.empty() ? "" : " and the run's first attention layer") +
                       (args.verbose ? ":\n" : " (--verbose: every number):\n");
    for (std::size_t i = 0; i < checks.size(); ++i)
        if (!checks[i].expected_to_hold)
            text += "statement " + std::to_string(i + 1) + " (" + checks[i].short_statement +
                    ") is false in general: it is expected to fail.\n";
    return text;
}

int run_theorems_command(const TheoremsArguments& args) {
    std::optional<train::LoadedRun> run;
    if (!args.run_dir.empty()) run = train::load_run(args.run_dir, "best", train::RunData::vocabulary);
    const kernels::ReferenceKernels path(kernel_path(args.reference, run ? run->config.kernels : kernels::KernelPath::fast));
    const std::vector<TheoremCheck> checks = run_theorems({.seed = args.seed, .trained = run ? run->model.get() : nullptr});
    if (!args.json) std::cout << header(checks, args);
    bool all_as_expected = true;
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const std::size_t number = i + 1;
        std::cout << (args.json ? theorem_json(number, checks[i]).dump()
                      : args.verbose ? verbose_line(number, checks[i])
                                     : short_line(number, checks[i]))
                  << "\n";
        all_as_expected = all_as_expected && checks[i].as_expected();
    }
    return all_as_expected ? 0 : 1;
}

}  // namespace

void add_theorems_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<TheoremsArguments>();
    auto* command = app.add_subcommand(
        "theorems", "Check the statements of attention theory on random weights (and a trained run's): one short line each.");
    command->add_option("--run", args->run_dir, "also check the first multi_head_attention of this run's best weights");
    add_seed_option(*command, args->seed, "seed of the random weights, inputs and samples")->capture_default_str();
    command->add_flag("--verbose", args->verbose, "each line with the whole statement, every number and its docs/math/ section");
    command->add_flag("--json", args->json, "one JSON object per line instead of text (for programs)");
    add_reference_flag(*command, args->reference);
    command->footer("Exit 0 when every statement came out as expected (the PSD claim is expected to fail: it is false in\n"
                    "general), 1 otherwise, 2 for a bad run directory.\n"
                    "Examples:\n  tapeformer theorems\n  tapeformer theorems --run runs/copy_transformer --verbose\n"
                    "  tapeformer theorems --run runs/copy_transformer --json");
    command->callback([args, &exit_code] { exit_code = run_theorems_command(*args); });
}

}  // namespace tf::cli
