// Run checkpoints: everything needed to continue a run exactly — the model's parameters, the
// optimizer's state, and in the metadata the step, the dropout and data-order RNG states, the best
// validation loss so far and the resolved config — in one safetensors file written atomically.
#pragma once
#include <string>

#include "config/json_reader.h"
#include "models/model.h"
#include "datasets/batching.h"
#include "train/optimizer.h"
#include "datasets/tokenizer.h"

namespace tf::train {

struct TrainingProgress {
    int64_t step = 0;              // updates done
    double elapsed_seconds = 0;    // training time before this process (max_minutes counts it)
    double best_valid_loss = 0;    // NaN until the first evaluation
    int64_t best_step = 0;
    // The dropout Rng at the save. Each step reseeds it from the run's seed and the step number
    // (trainer.cpp), so a resume does not need it; it stays so that older checkpoints still read.
    Rng::State dropout_rng{};
    BatcherState batcher;
    // The log row still open at the save (loss summed over its steps so far), so that a resumed run
    // logs the same averages as one never cut.
    double log_loss_sum = 0;
    int64_t log_steps = 0;
};

// Writes model ("model.<name>"), optimizer ("optimizer.…") and progress to `path`, atomically.
// `tokenizer`: the tokenizer's JSON when the run learned it (byte-pair merges), so the weights and
// the merges they were trained with travel together; "" when the data rebuilds it (char, word, ids).
void save_checkpoint(const std::string& path, const SequenceModel& model, const Optimizer* optimizer,
                     const TrainingProgress& progress, const std::string& resolved_config, const std::string& tokenizer);

struct LoadedCheckpoint {
    TrainingProgress progress;
    std::string resolved_config;  // "" in a weights-only file
};
// Loads parameters into `model` (and state into `optimizer` when given). Every problem — a missing
// or extra parameter, a shape, a NaN or ∞ in any tensor, metadata that is not exactly what
// save_checkpoint writes (a step of "1e30", "-5" or " 4") — is a CheckpointError naming the file
// and the tensor or key. Before any weight is read, the checkpoint must have been trained with
// `tokenizer`: one that carries byte-pair merges must carry exactly its merges, and a "bpe"
// tokenizer needs one that carries them; a DataError naming the checkpoint otherwise (the weights'
// ids would mean other text).
LoadedCheckpoint load_checkpoint(const std::string& path, SequenceModel& model, Optimizer* optimizer,
                                 const Tokenizer& tokenizer);

// What save_checkpoint's `tokenizer` is: the tokenizer's JSON, so that a checkpoint's ids can be
// checked to mean the same text wherever it is loaded. Checkpoints saved before every kind was kept
// carry it only for byte-pair merges.
std::string checkpoint_tokenizer(const Tokenizer& tokenizer);

// The progress (step, time, RNG and data-order state) alone, without building a model.
TrainingProgress read_progress(const std::string& path);

// The resolved config a checkpoint was saved with, parsed; a CheckpointError naming the file when
// it is missing, empty or not a JSON object.
config::Json saved_config(const std::string& path);
config::Json parse_saved_config(const std::string& resolved_config, const std::string& path);

// Model weights only, from a checkpoint ("model.<name>") or a plain state dict ("<name>"): --init.
// A checkpoint of ours must have been trained with `tokenizer` (as load_checkpoint requires: the
// same ids must mean the same text) and as the model section of `resolved` (the run's resolved
// config) says: two heads' weights read as four fit the shapes and mean nothing. A plain state dict
// says nothing of either.
void load_weights(const std::string& path, SequenceModel& model, const Tokenizer& tokenizer, const config::Json& resolved);

std::string rng_state_to_text(const Rng::State& state);                      // "0x…,0x…,0x…,0x…"
Rng::State rng_state_from_text(const std::string& text, const std::string& source);

}  // namespace tf::train
