// `tapeformer train CONFIG [--set k=v]... [--run-dir DIR] [--resume DIR] [--init FILE]`.
#include <iostream>

#include "cli/commands.h"
#include "cli/reference_option.h"
#include "distributed/communicator.h"
#include "train/trainer.h"
#include "util/stop_signals.h"

namespace tf::cli {

namespace {

struct TrainArguments {
    std::string config_path, run_dir, resume, init;
    std::vector<std::string> overrides;
    bool check_numerics = false, quiet = false, reference = false;
    std::string gradient_sum = name_of(train::GradientSum::during_backward);
};

int run_train(const TrainArguments& args) {
    if (args.config_path.empty() == args.resume.empty())
        throw ConfigError("train: give a CONFIG file to start a run, or --resume DIR to continue one (not both)");
    train::TrainOptions options;
    options.check_numerics = args.check_numerics;
    options.quiet = args.quiet;
    options.init_weights = args.init;
    options.ranks = &distributed::world();
    options.gradient_sum = *enum_from_name<train::GradientSum>(args.gradient_sum);   // CLI11 checked the name
    train::RunConfig config;
    if (!args.resume.empty()) {
        // The run's own resolved config, with any --set (say, a longer train.max_steps) applied.
        config = train::resumed_run_config(args.resume, args.overrides);
        options.run_dir = args.resume;
        options.resume = true;
    } else {
        config = train::load_run_config(args.config_path, args.overrides);
        options.run_dir = args.run_dir;
    }
    const train::TrainResult result = train::train(config, options);
    const int exit_status = result.stop_signal ? exit_status_after(result.stop_signal) : 0;
    if (options.ranks->rank() != 0) return exit_status;   // rank 0 reports for the job
    std::cout << "run: " << result.run_dir << "  steps: " << result.steps
              << (result.stop_signal ? "  (stopped by a signal; continue with --resume " + result.run_dir + ")" : "") << "\n";
    if (result.valid.tokens > 0)
        std::cout << "valid: loss " << result.valid.loss << "  perplexity " << result.valid.perplexity << "  token accuracy "
                  << result.valid.token_accuracy << "  sequence accuracy " << result.valid.sequence_accuracy << "\n";
    return exit_status;
}

}  // namespace

void add_train_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<TrainArguments>();
    auto* command = app.add_subcommand("train", "Train a model from a JSON config (or continue a run with --resume).");
    command->add_option("config", args->config_path, "the run config (configs/*.json)");
    command->add_option("--set", args->overrides, "override a config value: --set model.heads=8 (repeatable)");
    command->add_option("--run-dir", args->run_dir, "where the run goes (default: runs/<config name>)");
    command->add_option("--resume", args->resume, "continue the run in DIR from its latest checkpoint");
    command->add_option("--init", args->init, "start from these weights (.safetensors)");
    command->add_flag("--check-numerics", args->check_numerics, "check every op for NaN/inf, naming the op and layer");
    command->add_flag("--quiet", args->quiet, "no progress output");
    add_reference_flag(*command, args->reference);
    command->add_option("--gradient-sum", args->gradient_sum,
                        "under mpirun: sum the ranks' gradients in buckets during the backward pass, or in one "
                        "buffer after it (the same sums; docs/distributed.md)")
        ->capture_default_str()->check(CLI::IsMember(enum_name_list<train::GradientSum>()));
    command->footer("Examples:\n  tapeformer train configs/copy_transformer.json\n"
                    "  tapeformer train configs/poetry_gru.json --set train.max_steps=200 --run-dir runs/try\n"
                    "  tapeformer train --resume runs/poetry_gru --set train.max_steps=4000");
    command->callback([args, &app, &exit_code] {
        // `tapeformer --threads N train CONFIG` means N threads whatever the config says: it goes
        // first among the overrides (a --set threads= still has the last word) and into config.resolved.json.
        if (const CLI::Option* threads = app.get_option("--threads"); threads->count() > 0)
            args->overrides.insert(args->overrides.begin(), "threads=" + threads->as<std::string>());
        if (args->reference) args->overrides.push_back("kernels=reference");   // saved with the run
        exit_code = run_train(*args);
    });
}

}  // namespace tf::cli
