// Rebuilding a run from its directory.
#include "train/run_loader.h"

#include <filesystem>

#include "config/json_file.h"
#include "train/checkpoint.h"
#include "train/resume_config.h"
#include "train/safetensors.h"
#include "util/files.h"

namespace tf::train {

std::shared_ptr<SequenceModel> build_run_model(const RunConfig& config, const Dataset& dataset) {
    ModelBuildContext build;
    build.vocab_size = dataset.vocab_size;
    build.pad_id = kPadId;
    build.seed = config.seed;
    build.dropout_rng = std::make_shared<Rng>(config.seed + 1);
    return build_model(config.model, build);
}

namespace {
// The vocabulary alone, as training saved it: a Dataset without examples.
Dataset vocabulary_only(const RunConfig& config, const RunDirectory& dir) {
    if (!file_exists(dir.vocab()))
        throw DataError(dir.root() + ": no vocab.json, which holds the run's vocabulary (was the run copied without it?)");
    Dataset dataset;
    dataset.tokenizer = Tokenizer::load(dir.vocab());
    dataset.vocab_size = dataset.tokenizer.size();
    dataset.task = config.data.task;
    return dataset;
}
}  // namespace

LoadedRun load_run(const std::string& directory, const std::string& which, RunData data, const std::string& data_path) {
    const RunDirectory dir(directory);
    if (!file_exists(dir.config()))
        throw ConfigError(directory + ": not a run directory (no config.resolved.json)");
    LoadedRun run;
    run.config = read_run_config(config::load_json_file(dir.config()),
                                 std::filesystem::path(directory).filename().string());
    run.checkpoint = which == "best" && file_exists(dir.best()) ? dir.best() : dir.latest();
    if (run.checkpoint.empty()) throw CheckpointError(directory + ": no checkpoint yet (train first)");
    if (!data_path.empty()) run.config.data.path = data_path;
    const bool from_file = run.config.data.source != DataSource::synthetic;
    if (data == RunData::splits && from_file && !file_exists(run.config.data.path))
        throw DataError(directory + ": the run's data file " + shown_path(run.config.data.path) + " is not there (a " +
                        "relative data.path is read from the working directory); give its place with --data PATH");
    if (data == RunData::vocabulary) {
        run.dataset = vocabulary_only(run.config, dir);
    } else if (run.config.data.tokenizer == TokenizerKind::bpe) {
        // The run's merges, as training learned them: replayed, not learned again.
        if (!file_exists(dir.vocab()))
            throw DataError(directory + ": no vocab.json, which holds the run's byte-pair merges (train first)");
        const Tokenizer merges = Tokenizer::load(dir.vocab());
        if (merges.kind() != TokenizerKind::bpe)
            throw DataError(dir.vocab() + ": a \"" + name_of(merges.kind()) + "\" vocabulary, but the run's config says data.tokenizer \"bpe\"");
        run.dataset = load_dataset(run.config.data, &merges);
    } else {
        run.dataset = load_dataset(run.config.data);
        if (file_exists(dir.vocab()) && Tokenizer::load(dir.vocab()).to_json() != run.dataset.tokenizer.to_json())
            throw DataError(directory + ": the data now gives a different vocabulary than the run's vocab.json");
    }
    run.model = build_run_model(run.config, run.dataset);
    const LoadedCheckpoint loaded = load_checkpoint(run.checkpoint, *run.model, nullptr, run.dataset.tokenizer);
    // The weights mean something only under the config they were trained with: an edited
    // config.resolved.json (two heads read as four) is refused as a resume would refuse it.
    check_resume_config(parse_saved_config(loaded.resolved_config, run.checkpoint), run.config.resolved, run.checkpoint);
    run.step = loaded.progress.step;
    run.model->eval();
    return run;
}

}  // namespace tf::train
