// The "train" and "decode" sections of a run config: budgets, logging, evaluation, checkpoints,
// and the attention-temperature curriculum (docs/math/theory.md §8).
#pragma once
#include <cstdint>

#include "config/json_reader.h"
#include "models/model.h"

namespace tf::train {

struct TemperatureCurriculum {
    bool enabled = false;
    // The attention temperature multiplier goes from `start` to 1 linearly over `steps` steps:
    // a small start sharpens attention early ("local"), 1 is plain scaled dot-product attention.
    double start = 1.0;
    int64_t steps = 0;
    double multiplier_at(int64_t step) const;
};

struct TrainConfig {
    int64_t max_steps = 1000;
    double max_minutes = 0;          // 0 = no time budget
    int64_t log_every = 50;
    int64_t eval_every = 200;        // 0 = only at the end
    // Early stopping: the run ends once this many evaluations in a row have not lowered the best
    // validation loss (max_steps stays the cap); 0 = train to max_steps.
    int64_t patience = 0;
    int64_t eval_batches = 0;        // 0 = the whole validation split
    int64_t checkpoint_every = 500;  // 0 = only at the end (and on SIGINT/SIGTERM)
    int64_t keep_checkpoints = 3;    // older step checkpoints are deleted (best.safetensors stays)
    double label_smoothing = 0.0;
    // k: each step runs data.batch_size examples as k micro-batches of batch_size / k and takes one
    // optimizer step on their summed gradient, as if they were one batch (less memory, same step).
    int64_t accumulate_steps = 1;
    TemperatureCurriculum temperature_curriculum;
};

// The widest beam: decode.beam_size's bound and reconstruct --beam's, one number for both.
inline constexpr int64_t kMaxBeamSize = 64;

struct DecodeConfig {
    int64_t max_length = 128;
    int64_t beam_size = 1;  // 1 = greedy
    double length_penalty = 0.6;
    DecodeCache cache = DecodeCache::automatic;  // "auto", "on" or "off" (models/model.h)
};

TrainConfig read_train_config(config::JsonReader& section);
// `default_max_length`: decode.max_length when the section leaves it out (the run config passes
// 128, or a transformer's model.max_length if that is fewer).
DecodeConfig read_decode_config(config::JsonReader& section, int64_t default_max_length);

}  // namespace tf::train
