// The CLI's subcommands. Each add_*_command registers one subcommand on the app; when it runs it
// stores its exit code in `exit_code` (0 success, 2 bad config or input file, 1 other failure).
#pragma once
#include <CLI/CLI.hpp>

namespace tf::cli {

void add_gradcheck_command(CLI::App& app, int& exit_code);
void add_train_command(CLI::App& app, int& exit_code);
void add_eval_command(CLI::App& app, int& exit_code);
void add_decode_commands(CLI::App& app, int& exit_code);  // reconstruct, generate
void add_config_command(CLI::App& app, int& exit_code);
void add_analyze_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_collect_command(CLI::App& app, int& exit_code);  // students' runs or comparisons in one report
void add_bench_command(CLI::App& app, int& exit_code);  // throughput vs the PyTorch workloads
void add_tape_command(CLI::App& app, int& exit_code);   // one training step's tape, drawn
void add_export_command(CLI::App& app, int& exit_code); // a trained run as a PyTorch model
void add_theorems_command(CLI::App& app, int& exit_code);  // the statements of attention theory, checked

}  // namespace tf::cli
