// `tapeformer export --run DIR --to pytorch OUT`: the run's model as PyTorch modules, its weights
// under their names, and a check of the logits (export/pytorch_export.h).
#include <iostream>

#include "cli/commands.h"
#include "export/pytorch_export.h"

namespace tf::cli {

namespace {

struct ExportArguments {
    std::string run_dir, to, out, weights = "best";
    int64_t examples = 8;
    bool force = false;
};

int run_export(const ExportArguments& args) {
    train::LoadedRun run = train::load_run(args.run_dir, args.weights, train::RunData::vocabulary);
    const std::vector<std::string> paths = export_to_pytorch(run, args.run_dir, args.out, args.examples, args.force);
    std::cout << "wrote";
    for (std::size_t i = 0; i < paths.size(); ++i) std::cout << (i == 0 ? " " : ", ") << paths[i];
    std::cout << "\ncheck it against tapeformer's logits: python3 " << paths[1] << "\n"
              << "decode text with it: python3 " << paths[1] << " --decode \"some text\"\n";
    return 0;
}

}  // namespace

void add_export_command(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<ExportArguments>();
    auto* command = app.add_subcommand("export", "Write a trained run's model as a PyTorch model (model.py + model.safetensors).");
    command->add_option("--run", args->run_dir, "the run directory")->required();
    command->add_option("--to", args->to, "the framework to export to")->required()->check(CLI::IsMember({"pytorch"}));
    command->add_option("out", args->out, "the folder to write (made if missing; not the run directory, not a symbolic link)")->required();
    command->add_flag("--force", args->force, "overwrite the files of an earlier export in OUT");
    command->add_option("--weights", args->weights, "best or latest")->capture_default_str()
        ->check(CLI::IsMember({"best", "latest"}));
    command->add_option("--examples", args->examples, "input sequences whose logits check.safetensors keeps")
        ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{256}));
    command->footer("Examples:\n  tapeformer export --run runs/copy_transformer --to pytorch exported/\n"
                    "  python3 exported/model.py      # rebuilds it with torch.nn, compares the logits\n"
                    "  python3 exported/model.py --decode \"abc\"   # greedy decoding of some text");
    command->callback([args, &exit_code] { exit_code = run_export(*args); });
}

}  // namespace tf::cli
