// Reading and validating the "train" and "decode" sections.
#include "train/train_config.h"

#include <algorithm>

#include "autograd/error.h"

namespace tf::train {

double TemperatureCurriculum::multiplier_at(int64_t step) const {
    if (!enabled || steps <= 0 || step >= steps) return 1.0;
    return start + (1.0 - start) * static_cast<double>(step) / static_cast<double>(steps);
}

TrainConfig read_train_config(config::JsonReader& section) {
    TrainConfig train;
    train.max_steps = section.integer("max_steps", train.max_steps, {.min = 1, .max = 100'000'000});
    train.max_minutes = section.number("max_minutes", train.max_minutes, 0.0, 1e6);
    train.log_every = section.integer("log_every", train.log_every, {.min = 1, .max = 100'000'000});
    train.eval_every = section.integer("eval_every", train.eval_every, {.min = 0, .max = 100'000'000});
    train.patience = section.integer("patience", train.patience, {.min = 0, .max = 1'000'000});
    if (train.patience > 0 && train.eval_every == 0)
        throw ConfigError("train.patience counts evaluations, and train.eval_every is 0 (only at the end): give it "
                          "train.eval_every > 0 or leave patience out");
    train.eval_batches = section.integer("eval_batches", train.eval_batches, {.min = 0, .max = 100'000'000});
    train.checkpoint_every = section.integer("checkpoint_every", train.checkpoint_every, {.min = 0, .max = 100'000'000});
    train.keep_checkpoints = section.integer("keep_checkpoints", train.keep_checkpoints, {.min = 1, .max = 1000});
    train.label_smoothing = section.number("label_smoothing", train.label_smoothing, 0.0, 0.99);
    train.accumulate_steps = section.integer("accumulate_steps", train.accumulate_steps, {.min = 1, .max = 1'000'000});
    if (section.has("temperature_curriculum")) {
        config::JsonReader curriculum = section.object("temperature_curriculum");
        train.temperature_curriculum.enabled = true;
        train.temperature_curriculum.start = curriculum.number("start", 0.25, 1e-3, 100.0);
        train.temperature_curriculum.steps = curriculum.integer("steps", {.min = 1, .max = 100'000'000});
        curriculum.finish();
    }
    section.finish();
    return train;
}

DecodeConfig read_decode_config(config::JsonReader& section, int64_t default_max_length) {
    DecodeConfig decode;
    decode.max_length = section.integer("max_length", default_max_length, {.min = 1, .max = 100'000});
    decode.beam_size = section.integer("beam_size", decode.beam_size, {.min = 1, .max = kMaxBeamSize});
    decode.length_penalty = section.number("length_penalty", decode.length_penalty, 0.0, 10.0);
    decode.cache = section.choice("cache", decode.cache);
    section.finish();
    return decode;
}

}  // namespace tf::train
