// A run config: one JSON file that says everything about a training run — model, data,
// optimizer, budget, decoding — validated strictly, with every default filled in the resolved
// copy that is printed by `config print` and saved with the run, so the run can be repeated.
#pragma once
#include <string>
#include <vector>

#include "config/json_reader.h"
#include "models/build.h"
#include "train/dataset.h"
#include "train/optim_config.h"
#include "train/train_config.h"

namespace tf::train {

struct RunConfig {
    std::string name;    // the run directory's default name: runs/<name>
    uint64_t seed = 1;   // initial weights and dropout (the data section has its own seed)
    int64_t threads = 0; // 0 = every core
    ModelConfig model;
    DataConfig data;
    OptimConfig optimizer;
    TrainConfig train;
    DecodeConfig decode;
    config::Json resolved;  // the whole config with defaults filled in
};

// Validates a parsed config; `default_name` names the run when the config has no "name".
RunConfig read_run_config(const config::Json& root, const std::string& default_name);

// Loads CONFIG, applies each "--set key=value" in order, validates. The default name is the
// file's stem (configs/copy_transformer.json → "copy_transformer").
RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace tf::train
