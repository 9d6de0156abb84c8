// The layout of a run directory, runs/<name>/:
//   config.resolved.json   the config with every default filled in
//   vocab.json             the tokenizer
//   metrics.jsonl          one JSON object per logged step
//   checkpoints/step-N.safetensors, checkpoints/latest (the newest one's file name)
//   best.safetensors       the checkpoint with the lowest validation loss
//   provenance.json        the build's commit, the machine, hashes of config and data (train/provenance.h)
//   lock                   the writer's lock (util/directory_lock.h); empty
#pragma once
#include <string>

namespace tf::train {

class RunDirectory {
public:
    explicit RunDirectory(std::string root) : root_(std::move(root)) {}
    const std::string& root() const { return root_; }
    std::string config() const { return root_ + "/config.resolved.json"; }
    std::string vocab() const { return root_ + "/vocab.json"; }
    std::string metrics() const { return root_ + "/metrics.jsonl"; }
    std::string checkpoints() const { return root_ + "/checkpoints"; }
    std::string checkpoint(int64_t step) const { return checkpoints() + "/step-" + std::to_string(step) + ".safetensors"; }
    std::string best() const { return root_ + "/best.safetensors"; }
    std::string provenance() const { return root_ + "/provenance.json"; }
    // The newest checkpoint's path, from checkpoints/latest; "" when there is none. A pointer file
    // that is not what set_latest writes ("step-N.safetensors") is a CheckpointError naming it.
    std::string latest() const;
    void set_latest(int64_t step) const;
    bool has_run() const;  // a checkpoint is there (a config alone is a start that failed)
    // A ConfigError naming `option` and the path when it exists and is not a directory (or, with
    // Existing::required, when it does not exist): checked before anything is read or written.
    enum class Existing { optional, required };
    void require_directory(const std::string& option, Existing existing) const;
    // Deletes step checkpoints older than the newest `keep`.
    void prune_checkpoints(int64_t keep) const;
    // Drops metrics.jsonl rows with "step" > `step` (a resumed run writes them again); every other
    // line, one we cannot read included, is kept.
    void truncate_metrics(int64_t step) const;

private:
    std::string root_;
};

}  // namespace tf::train
