// Opening a finished (or running) run directory for eval, reconstruct, generate and analysis:
// its resolved config, the same data splits, and the model with its best or latest weights.
#pragma once
#include <memory>
#include <string>

#include "models/model.h"
#include "train/run_config.h"
#include "train/run_dir.h"

namespace tf::train {

struct LoadedRun {
    RunConfig config;
    Dataset dataset;
    std::shared_ptr<SequenceModel> model;  // in eval mode
    std::string checkpoint;                // the file the weights came from
    int64_t step = 0;
};

// The run's model with its initial weights, as training builds it: the config's model section over
// the data's vocabulary, weights from the run's seed, dropout from seed + 1.
std::shared_ptr<SequenceModel> build_run_model(const RunConfig& config, const Dataset& dataset);

// What a command needs of the run's data. eval needs its splits, read from the data file again;
// generate, reconstruct --input, export, theorems and analyze --input need only the vocabulary,
// which vocab.json keeps, so a run directory copied anywhere works for them without its data.
enum class RunData { splits, vocabulary };

// `which`: "best" (best.safetensors, else the latest checkpoint) or "latest". `data_path`, when not
// empty, replaces the config's data.path (a run moved away from its data); a missing data file is
// a DataError naming it and --data.
LoadedRun load_run(const std::string& directory, const std::string& which = "best", RunData data = RunData::splits,
                   const std::string& data_path = "");

}  // namespace tf::train
