// A run config: one JSON file that says everything about a training run — model, data,
// optimizer, budget, decoding — validated strictly, with every default filled in the resolved
// copy that is printed by `config print` and saved with the run, so the run can be repeated.
#pragma once
#include <string>
#include <vector>

#include "autograd/kernels/matmul_precision.h"
#include "autograd/kernels/mode.h"
#include "config/enum_names.h"
#include "config/json_reader.h"
#include "models/build.h"
#include "datasets/dataset.h"
#include "train/optim_config.h"
#include "train/train_config.h"

namespace tf::kernels {
inline constexpr EnumName<MatmulPrecision> kMatmulPrecisionNames[] = {{MatmulPrecision::fp32, "fp32"},
                                                                       {MatmulPrecision::bf16, "bf16"}};
inline std::span<const EnumName<MatmulPrecision>> enum_names(MatmulPrecision) { return kMatmulPrecisionNames; }
inline constexpr EnumName<KernelPath> kKernelPathNames[] = {{KernelPath::fast, "fast"}, {KernelPath::reference, "reference"}};
inline std::span<const EnumName<KernelPath>> enum_names(KernelPath) { return kKernelPathNames; }
}  // namespace tf::kernels

namespace tf::train {

// The most kernel threads any config may ask for; a new run also stays within max_threads().
inline constexpr int64_t kMaxThreads = 1024;
// min(kMaxThreads, 4 × this machine's hardware threads): far beyond the cores, libgomp fails to
// start its threads instead of merely sharing the cores (docs/limits.md).
int64_t max_threads();

struct RunConfig {
    std::string name;    // the run directory's default name: runs/<name>, one plain path component
    uint64_t seed = 1;   // initial weights and dropout (the data section has its own seed)
    int64_t threads = 0; // 0 = every core
    // What the matrix products multiply in: fp32, or bf16 mixed precision (f32 weights, optimizer,
    // softmax, norms and loss; products of bf16 operands summed in f32). docs/math/mixed_precision.md
    kernels::MatmulPrecision precision = kernels::MatmulPrecision::fp32;
    // Which form of each op runs: "fast" (the default), or "reference", the readable form of every
    // op (autograd/kernels/mode.h): the same function, computed the way the code a student reads it.
    kernels::KernelPath kernels = kernels::KernelPath::fast;
    ModelConfig model;
    DataConfig data;
    OptimConfig optimizer;
    TrainConfig train;
    DecodeConfig decode;
    config::Json resolved;  // the whole config with defaults filled in
};

// Validates a parsed config; `default_name` names the run when the config has no "name". A saved
// run's config.resolved.json is read with it too, so it holds nothing that depends on the machine.
RunConfig read_run_config(const config::Json& root, const std::string& default_name);

// What a new run's config must also meet, though a saved run may have been made without it (on a
// bigger machine, or before the rule): threads ≤ max_threads(), precision "bf16" only on a CPU
// that has it, and a transformer's decode.max_length ≤ model.max_length. Throws ConfigError naming
// the keys.
void check_new_run(const RunConfig& run);
// Its first half alone, for a --set threads= on resume: threads ≤ max_threads().
void check_threads(const RunConfig& run);
// Its second: precision "bf16" only on a CPU with bf16 instructions (a resume checks it too).
void check_precision(const RunConfig& run);

// Loads CONFIG, applies each "--set key=value" in order, validates (check_new_run included). The
// default name is the file's stem (configs/copy_transformer.json → "copy_transformer").
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides);
// The same for a config already parsed (the Python module's dict), named `default_name` unless it says.
RunConfig run_config_from_json(config::Json root, const std::vector<std::string>& overrides, const std::string& default_name);

// The config `train --resume DIR` continues under: the run's own resolved config with the
// overrides applied (the trainer refuses one outside the keys a resume may change,
// train/resume_config.h). A --set threads= is held to this machine, as for a new run; the saved
// value is not (the run may come from a bigger machine). bf16 only on a CPU that has it.
RunConfig resumed_run_config(const std::string& run_dir, const std::vector<std::string>& overrides);

}  // namespace tf::train
