// `tapeformer eval --run DIR [--split test|valid]`: one JSON object with the metrics: the
// teacher-forced loss, perplexity and accuracies, and for a seq2seq run the scores of the text the
// model decodes itself (exact match, CER, chrF, BLEU; decoding/decoded_eval.h).
#include <iostream>

#include "cli/commands.h"
#include "cli/reference_option.h"
#include "decoding/run_evaluation.h"
#include "train/run_loader.h"

namespace tf::cli {

namespace {
int run_eval(const std::string& run_dir, const std::string& split, const std::string& which, const std::string& data,
             bool reference) {
    train::LoadedRun run = train::load_run(run_dir, which, train::RunData::splits, data);
    const kernels::ReferenceKernels path(kernel_path(reference, run.config.kernels));
    std::cout << train::evaluation_report(run, run_dir, split).dump() << "\n";
    return 0;
}
}  // namespace

void add_eval_command(CLI::App& app, int& exit_code) {
    auto run_dir = std::make_shared<std::string>();
    auto split = std::make_shared<std::string>("test");
    auto which = std::make_shared<std::string>("best");
    auto data = std::make_shared<std::string>();
    auto reference = std::make_shared<bool>(false);
    auto* command = app.add_subcommand("eval", "Evaluate a run's model on a split; prints one JSON object.");
    command->add_option("--run", *run_dir, "the run directory")->required();
    command->add_option("--split", *split, "test, valid or train")->check(CLI::IsMember({"test", "valid", "train"}));
    command->add_option("--weights", *which, "best or latest")->check(CLI::IsMember({"best", "latest"}));
    command->add_option("--data", *data, "the run's data file, when it is no longer at the config's data.path");
    add_reference_flag(*command, *reference);
    command->footer("Examples:\n  tapeformer eval --run runs/copy_transformer\n  tapeformer eval --run runs/poetry_gru --split valid");
    command->callback([=, &exit_code] { exit_code = run_eval(*run_dir, *split, *which, *data, *reference); });
}

}  // namespace tf::cli
