// `tapeformer analyze --run DIR [--input TEXT] [--viewer-examples N]`: attention maps, head
// statistics, the dependency kernel and the √d_k check, written to DIR/analysis/report.md and
// report.html (whose viewer shows the maps of the first N test examples).
#include <iostream>

#include "analysis/studies/analyze.h"
#include "cli/commands.h"
#include "cli/reference_option.h"

namespace tf::cli {

void add_analyze_command(CLI::App& app, int& exit_code) {
    auto run_dir = std::make_shared<std::string>();
    auto options = std::make_shared<AnalysisOptions>();
    auto reference = std::make_shared<bool>(false);
    auto* command = app.add_subcommand("analyze", "Show what a trained model learned: attention maps, gradient flow, scales.");
    command->add_option("--run", *run_dir, "the run directory")->required();
    command->add_option("--input", options->input, "text to analyse (default: the first test example)");
    command->add_option("--probes", options->probes, "random projections for the dependency kernel (0 = exact)")
        ->capture_default_str()->check(CLI::Range(int64_t{0}, kMaxProbes));
    command->add_option("--viewer-examples", options->viewer_examples,
                        "test examples in report.html's viewer, the report's own first (with --input: that text alone)")
        ->capture_default_str()->check(CLI::Range(int64_t{1}, kMaxViewerExamples));
    command->add_option("--out", options->out_dir, "where to write (default: RUN/analysis)");
    add_reference_flag(*command, *reference);
    command->footer("Examples:\n  tapeformer analyze --run runs/copy_transformer\n"
                    "  tapeformer analyze --run runs/poetry_gru_attention --input \"the woods are lovely\"");
    command->callback([=, &exit_code] {
        // With --input only the vocabulary is needed; the test examples need the data.
        train::LoadedRun run =
            train::load_run(*run_dir, "best", options->input ? train::RunData::vocabulary : train::RunData::splits);
        const kernels::ReferenceKernels path(kernel_path(*reference, run.config.kernels));
        const std::string report = analyze_run(run, *run_dir, *options);
        std::cout << "report: " << report << "\n";
        exit_code = 0;
    });
}

}  // namespace tf::cli
