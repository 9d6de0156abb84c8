// Helpers for the tests that train whole runs and drive the tapeformer binary: temporary
// directories, running the CLI as a child process, and reading what a run leaves behind.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograd/tensor.h"

namespace tf::test {

// A fresh, empty directory under the system temp directory, removed with its contents at the end.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "tapeformer-test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);  // "" when the file is not there

// build/tapeformer with `args`, run to the end; stdout and stderr captured.
struct CliResult {
    int exit_code = -1;  // the exit status; 128 + signal when killed by one
    std::string out, err;
};
// `max_file_bytes` ≥ 0: no file the CLI writes may grow past it (RLIMIT_FSIZE), so each write that
// would is refused as on a full disk.
CliResult run_cli(const std::vector<std::string>& args, long max_file_bytes = -1);
// The same, run in `directory` (where a run's relative data.path is read from).
CliResult run_cli_in(const std::string& directory, const std::vector<std::string>& args);

// The CLI refused its input: exit 2, and stderr names each of `named`.
void require_refused(const CliResult& result, const std::vector<std::string>& named);

// build/<name>, one of the examples/ programs (char_transformer), run to the end like run_cli.
CliResult run_example(const std::string& name, const std::vector<std::string>& args);

// The config of a copy-task transformer of width 8 with 2 heads, on one thread, logging each step,
// for `max_steps` steps.
nlohmann::json tiny_transformer_config(int64_t max_steps);

// Its 3-step run trained through the CLI in dir/run, from dir/config.json; returns the run
// directory. Saved at step 3 (latest and best).
std::string train_tiny_transformer_run(const TempDir& dir);

// The same, started in the background with stdout and stderr going to files; wait_for_exit reaps it.
pid_t start_cli(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path,
                long max_file_bytes = -1, const std::string& directory = "");
int wait_for_exit(pid_t child);
// Waits up to `seconds` for `done()` while the started child runs. Fails if it never holds, and at
// once if the child exits first, with the child's stderr (err_path): the test then says why.
void wait_while_child_runs(pid_t child, const std::string& err_path, const std::function<bool()>& done, int seconds);

// (step, loss) of every metrics.jsonl row.
std::vector<std::pair<int64_t, double>> logged_losses(const std::string& metrics_path);
int64_t metrics_rows(const std::string& metrics_path);  // 0 when the file is not there yet

// Every tensor of a safetensors file, as doubles (f32 values convert exactly).
std::map<std::string, std::vector<double>> tensor_values(const std::string& path);

}  // namespace tf::test
