// Comparing a run's saved config with the one it resumes under, key by key.
#include "train/resume_config.h"

#include <algorithm>

#include "autograd/error.h"
#include "config/json_diff.h"
#include "train/run_config.h"

namespace tf::train {

const std::vector<std::string> kResumableKeys = {
    "threads",                         // how many cores compute the same sums
    "kernels",                         // the fast or the readable form of the ops: the same function
    "train.accumulate_steps",          // how many pieces one step's batch is computed in
    "train.max_steps",                 // the budget
    "train.max_minutes",
    "train.patience",
    "optimizer.schedule.total_steps",  // a schedule tied to max_steps follows a longer budget
    "train.log_every",                 // logging, evaluation and checkpoint cadence
    "train.eval_every",
    "train.eval_batches",
    "train.checkpoint_every",
    "train.keep_checkpoints",
    "decode",                          // how generate and reconstruct decode; training never reads it
};

namespace {
bool resumable(const std::string& key) {
    return std::any_of(kResumableKeys.begin(), kResumableKeys.end(), [&](const std::string& allowed) {
        return key == allowed || key.rfind(allowed + ".", 0) == 0;
    });
}

std::string joined(const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + key;
    return text;
}

// The saved config as this version reads it. A run saved before a key was added lacks the key; read
// again, it holds the key at its default, which is what the run used (docs/extending.md, "Adding a
// config key").
config::Json read_again(const config::Json& saved, const std::string& source) {
    try {
        return read_run_config(saved, "run").resolved;
    } catch (const ConfigError& error) {
        throw CheckpointError(source + ": the config it was saved with: " + error.what());
    }
}

// The first change a resume may not make; nullptr when every change is resumable.
const config::JsonChange* first_forbidden(const std::vector<config::JsonChange>& changes) {
    const auto found = std::find_if(changes.begin(), changes.end(),
                                    [](const config::JsonChange& change) { return !resumable(change.key); });
    return found == changes.end() ? nullptr : &*found;
}
}  // namespace

void check_resume_config(const config::Json& saved, const config::Json& now, const std::string& source) {
    const config::Json saved_read = read_again(saved, source);
    const std::vector<config::JsonChange> changes = config::json_changes(&saved_read, &now);
    const config::JsonChange* change = first_forbidden(changes);
    if (!change) return;
    throw ConfigError(source + ": " + change->key + " was " + change->was + " when the run was saved and is " + change->is +
                      " now; a resumed run keeps its model, data, tokenizer and optimizer, and may change only " +
                      joined(kResumableKeys) + " (docs/config.md, \"Resuming a run\")");
}

void check_same_model(const config::Json& saved, const config::Json& now, const std::string& source) {
    const config::Json saved_read = read_again(saved, source);
    const std::vector<config::JsonChange> changes = config::json_changes(&saved_read.at("model"), &now.at("model"), "model");
    if (changes.empty()) return;
    throw ConfigError(source + ": " + changes.front().key + " was " + changes.front().was + " when these weights were trained and is " +
                      changes.front().is + " now; --init takes weights only into the model they were trained as");
}

}  // namespace tf::train
