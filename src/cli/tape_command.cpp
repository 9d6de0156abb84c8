// `tapeformer tape CONFIG [--set k=v]... [--examples N] [--tokens N] [--out DIR] [--text] [--fast]
// [--values]`: record one training step of the config's model on a tiny batch and show its tape
// (analysis/reports/tape_view.h). The readable form of every op by default, so attention shows as its chain
// of ops; --fast shows what the fast path records (fused entries).
#include <iostream>

#include "analysis/reports/tape_view.h"
#include "cli/commands.h"
#include "cli/reference_option.h"
#include "util/files.h"

namespace tf::cli {

namespace {

struct TapeArguments {
    std::string config_path, out;
    std::vector<std::string> overrides;
    TapeStepSize size;
    bool text = false, fast = false, reference = false, values = false;
};

int run_tape(const TapeArguments& args) {
    train::RunConfig config = train::load_run_config(args.config_path, args.overrides);
    config.kernels = args.fast ? kernels::KernelPath::fast : kernels::KernelPath::reference;
    const RecordedStep step = record_training_step(config, args.size, args.values);
    if (args.text || args.values) {
        std::cout << tape_text(step.nodes);
        return 0;
    }
    const std::string out = args.out.empty() ? "runs/" + config.name + "/tape" : args.out;
    make_directories(out);
    const std::string title = "The tape of one training step: " + config.name + ", " + std::to_string(args.size.examples) +
                              (args.size.examples == 1 ? " example" : " examples") + " of at most " +
                              std::to_string(args.size.max_tokens) + " tokens";
    write_file_atomic(out + "/tape.html", tape_html(step.nodes, title));
    write_file_atomic(out + "/tape.svg", tape_svg(step.nodes, title));
    std::cout << step.nodes.size() << " entries: " << out << "/tape.html, " << out << "/tape.svg\n";
    return 0;
}

}  // namespace

void add_tape_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<TapeArguments>();
    auto* command = app.add_subcommand("tape", "Record one training step of a config's model and show every entry of its tape.");
    command->add_option("config", args->config_path, "the run config (configs/*.json)")->required();
    command->add_option("--set", args->overrides, "override a config value: --set model.encoder_layers=1 (repeatable)");
    command->add_option("--examples", args->size.examples, "training examples in the step (the first ones)")
        ->capture_default_str()->check(CLI::Range(int64_t{1}, kMaxTapeExamples));
    command->add_option("--tokens", args->size.max_tokens, "each example's source and target cut to this many tokens "
                                                           "(a recurrent layer records its cell once per token)")
        ->capture_default_str()->check(CLI::Range(int64_t{1}, kMaxTapeTokens));
    command->add_option("--out", args->out, "where tape.html and tape.svg go (default runs/<name>/tape)");
    command->add_flag("--text", args->text, "print the entries for a terminal instead of writing the page");
    CLI::Option* fast = command->add_flag("--fast", args->fast, "show what the fast path records (fused ops) "
                                                                "instead of the readable form of every op");
    add_reference_flag(*command, args->reference)->excludes(fast)->description(
        "show the readable form of every op (the default; attention as matmul, mask, softmax, matmul)");
    command->add_flag("--values", args->values, "print every entry's output and, after backward, its gradient "
                                                "(a tiny model: at most 512 numbers an entry; implies --text)");
    command->footer("Examples:\n  tapeformer tape configs/copy_transformer.json\n"
                    "  tapeformer tape configs/copy_gru_attention.json --text | less\n"
                    "  tapeformer tape configs/char_lm.json --fast --text\n"
                    "  tapeformer tape configs/char_lm.json --set model.d_model=8 --set model.heads=2 --set model.layers=1 \\\n"
                    "      --set model.ffn_hidden=8 --examples 1 --tokens 4 --values");
    command->callback([args, &exit_code] { exit_code = run_tape(*args); });
}

}  // namespace tf::cli
