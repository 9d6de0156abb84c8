// Checkpoint save/load on top of the safetensors reader and writer.
#include "train/checkpoint.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>

#include "config/json_text.h"
#include "train/checkpoint_metadata.h"
#include "train/resume_config.h"
#include "train/safetensors.h"

namespace tf::train {

namespace {
constexpr const char* kFormat = "tapeformer-checkpoint-1";
const std::string kModelPrefix = "model.";

const std::string& metadata_field(const Safetensors& file, const std::string& key, const std::string& path) {
    const auto found = file.metadata.find(key);
    if (found == file.metadata.end()) throw CheckpointError(path + ": metadata has no '" + key + "'");
    return found->second;
}

// A NaN or ∞ in a weight or an optimizer moment never comes from a healthy run (training stops at
// the first non-finite loss or gradient). Loaded, it gives a NaN loss — or, in a row no input
// reaches, a plausible one — so the whole file is refused, naming the tensor and the element.
void require_finite(const std::string& path, const std::map<std::string, Tensor>& tensors) {
    for (const auto& [name, tensor] : tensors) {
        const std::vector<double> values = tensor.to_vector();   // f32 values convert exactly, ∞ and NaN included
        const auto bad = std::find_if(values.begin(), values.end(), [](double value) { return !std::isfinite(value); });
        if (bad == values.end()) continue;
        const double value = *bad;
        throw CheckpointError(path + ": tensor '" + name + "' holds " + (std::isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf") +
                              " at element " + std::to_string(bad - values.begin()) + " (of " + std::to_string(values.size()) +
                              "); a checkpoint's weights and optimizer state must all be finite");
    }
}

void load_model_tensors(const std::string& path, const std::map<std::string, Tensor>& tensors, SequenceModel& model,
                        bool prefixed) {
    std::map<std::string, Tensor> state;
    for (const auto& [name, tensor] : tensors) {
        if (prefixed && name.rfind(kModelPrefix, 0) != 0) continue;
        state.emplace(prefixed ? name.substr(kModelPrefix.size()) : name, tensor);
    }
    try {
        model.load_state_dict(state);
    } catch (const Error& error) {
        throw CheckpointError(path + ": " + error.what());
    }
}
}  // namespace

std::string rng_state_to_text(const Rng::State& state) {
    std::string text;
    for (uint64_t word : state) {
        char hex[20];
        std::snprintf(hex, sizeof hex, "0x%016" PRIx64, word);
        if (!text.empty()) text += ',';
        text += hex;
    }
    return text;
}

// Exactly the writer's form: four words of "0x" + 16 lowercase hex digits, joined by commas.
Rng::State rng_state_from_text(const std::string& text, const std::string& source) {
    constexpr std::size_t kWordChars = 18, kTextChars = 4 * kWordChars + 3;
    const auto refuse = [&] {
        throw CheckpointError(source + ": RNG state " + config::describe(config::Json(text)) +
                              " is not four 0x-prefixed 16-digit hex words separated by commas");
    };
    if (text.size() != kTextChars) refuse();
    Rng::State state{};
    for (std::size_t i = 0; i < 4; ++i) {
        const std::string word = text.substr(i * (kWordChars + 1), kWordChars);
        if (word.rfind("0x", 0) != 0 || word.find_first_not_of("0123456789abcdef", 2) != std::string::npos) refuse();
        if (i < 3 && text[i * (kWordChars + 1) + kWordChars] != ',') refuse();
        state[i] = std::stoull(word.substr(2), nullptr, 16);
    }
    return state;
}

void save_checkpoint(const std::string& path, const SequenceModel& model, const Optimizer* optimizer,
                     const TrainingProgress& progress, const std::string& resolved_config, const std::string& tokenizer) {
    std::map<std::string, Tensor> tensors;
    for (const auto& [name, tensor] : model.named_parameters()) tensors.emplace(kModelPrefix + name, tensor);
    if (optimizer)
        for (const auto& [name, tensor] : optimizer->state()) tensors.emplace(name, tensor);
    char number[64];
    const auto text = [&number](double value) {
        std::snprintf(number, sizeof number, "%.17g", value);
        return std::string(number);
    };
    std::map<std::string, std::string> metadata = {
        {"format", kFormat},
        {"step", std::to_string(progress.step)},
        {"elapsed_seconds", text(progress.elapsed_seconds)},
        {"best_valid_loss", std::isnan(progress.best_valid_loss) ? "nan" : text(progress.best_valid_loss)},
        {"best_step", std::to_string(progress.best_step)},
        {"dropout_rng", rng_state_to_text(progress.dropout_rng)},
        {"batcher", progress.batcher.to_json().dump()},
        {"log_loss_sum", text(progress.log_loss_sum)},
        {"log_steps", std::to_string(progress.log_steps)},
        {"config", resolved_config},
    };
    if (!tokenizer.empty()) metadata.emplace("tokenizer", tokenizer);
    write_safetensors(path, tensors, metadata);
}

namespace {
// The progress stored in a checkpoint's metadata, each field read back exactly as save_checkpoint
// writes it and checked against the others (best_step and the open log row lie within the steps).
TrainingProgress progress_of(const Safetensors& file, const std::string& path) {
    const std::string& format = metadata_field(file, "format", path);
    if (format != kFormat)
        throw CheckpointError(path + ": not a tapeformer checkpoint (format " + config::describe(config::Json(format)) + ")");
    const auto field = [&](const std::string& key) -> const std::string& { return metadata_field(file, key, path); };
    TrainingProgress progress;
    progress.step = parse_count_field(field("step"), "step", path);
    const std::string step_bound = "step " + std::to_string(progress.step);
    progress.elapsed_seconds = parse_real_field(field("elapsed_seconds"), "elapsed_seconds", path, RealRange::non_negative);
    // "nan" is the writer's mark for "no evaluation yet"; any other value is a finite loss.
    const std::string& best = field("best_valid_loss");
    progress.best_valid_loss = best == "nan" ? NAN : parse_real_field(best, "best_valid_loss", path, RealRange::finite);
    progress.best_step = parse_count_field(field("best_step"), "best_step", path, progress.step, step_bound);
    progress.dropout_rng = rng_state_from_text(field("dropout_rng"), path);
    if (file.metadata.count("log_steps")) {   // absent in checkpoints written before it was saved: an empty row
        progress.log_loss_sum = parse_real_field(field("log_loss_sum"), "log_loss_sum", path, RealRange::finite);
        progress.log_steps = parse_count_field(field("log_steps"), "log_steps", path, progress.step, step_bound);
    }
    config::JsonParse batcher = config::parse_json_bounded(field("batcher"));
    if (!batcher.ok()) throw CheckpointError(path + ": metadata 'batcher': " + batcher.problem);
    try {
        progress.batcher = BatcherState::from_json(batcher.value, path);
    } catch (const Error& error) {
        throw CheckpointError(std::string(error.what()));
    }
    return progress;
}
}  // namespace

TrainingProgress read_progress(const std::string& path) { return progress_of(read_safetensors(path), path); }

config::Json parse_saved_config(const std::string& resolved_config, const std::string& path) {
    config::JsonParse parsed = config::parse_json_bounded(resolved_config);
    if (!parsed.ok()) throw CheckpointError(path + ": metadata 'config': " + parsed.problem);
    if (!parsed.value.is_object()) throw CheckpointError(path + ": metadata 'config' is not a JSON object");
    return std::move(parsed.value);
}

config::Json saved_config(const std::string& path) {
    const Safetensors file = read_safetensors(path);
    return parse_saved_config(metadata_field(file, "config", path), path);
}

std::string checkpoint_tokenizer(const Tokenizer& tokenizer) { return tokenizer.to_json().dump(); }

namespace {
// The kind ("char", "bpe", …) of a tokenizer's JSON as checkpoint_tokenizer writes it; "" if unreadable.
std::string tokenizer_kind(const std::string& saved) {
    const config::JsonParse parsed = config::parse_json_bounded(saved);
    const bool readable = parsed.ok() && parsed.value.is_object() && parsed.value.contains("kind") && parsed.value["kind"].is_string();
    return readable ? parsed.value["kind"].get<std::string>() : "";
}

void require_tokenizer(const Safetensors& file, const Tokenizer& tokenizer, const std::string& path) {
    const auto saved = file.metadata.find("tokenizer");
    if (saved == file.metadata.end()) {
        // Written before every checkpoint carried its vocabulary: then only byte-pair merges were kept.
        if (tokenizer.kind() != TokenizerKind::bpe) return;
        throw DataError(path + ": the config's data.tokenizer is \"bpe\", but the checkpoint carries no byte-pair merges: " +
                        "its weights were trained with another tokenizer");
    }
    if (saved->second == checkpoint_tokenizer(tokenizer)) return;
    const std::string saved_kind = tokenizer_kind(saved->second);
    const std::optional<TokenizerKind> kind = enum_from_name<TokenizerKind>(saved_kind);   // none when unknown
    const std::string config_kind = name_of(tokenizer.kind());
    if (kind == TokenizerKind::bpe && tokenizer.kind() == TokenizerKind::bpe)
        throw DataError(path + ": the weights were trained with other byte-pair merges than the run's vocab.json (was the data " +
                        "file or data.vocab_size changed?)");
    if (kind == TokenizerKind::bpe)
        throw DataError(path + ": the weights were trained with byte-pair merges (its metadata 'tokenizer'), but the config's " +
                        "data.tokenizer is \"" + config_kind + "\"");
    if (kind != tokenizer.kind())
        throw DataError(path + ": the weights were trained with a \"" + saved_kind + "\" tokenizer (its metadata 'tokenizer'), but " +
                        "the config's data.tokenizer is \"" + config_kind + "\"");
    throw DataError(path + ": the weights were trained with another vocabulary than this data gives (was the data file or " +
                    "another data key changed?): the same ids would mean other text");
}
}  // namespace

LoadedCheckpoint load_checkpoint(const std::string& path, SequenceModel& model, Optimizer* optimizer,
                                 const Tokenizer& tokenizer) {
    const Safetensors file = read_safetensors(path);
    LoadedCheckpoint loaded{progress_of(file, path), metadata_field(file, "config", path)};
    require_tokenizer(file, tokenizer, path);
    require_finite(path, file.tensors);
    load_model_tensors(path, file.tensors, model, true);
    if (optimizer) {
        std::map<std::string, Tensor> state;
        for (const auto& [name, tensor] : file.tensors)
            if (name.rfind(kModelPrefix, 0) != 0) state.emplace(name, tensor);
        try {
            optimizer->load_state(state);
        } catch (const Error& error) {
            throw CheckpointError(path + ": optimizer state: " + error.what());
        }
    }
    return loaded;
}

void load_weights(const std::string& path, SequenceModel& model, const Tokenizer& tokenizer, const config::Json& resolved) {
    const Safetensors file = read_safetensors(path);
    if (file.metadata.count("format")) {   // one of our checkpoints
        require_tokenizer(file, tokenizer, path);
        check_same_model(parse_saved_config(metadata_field(file, "config", path), path), resolved, path);
    }
    require_finite(path, file.tensors);
    bool prefixed = false;
    for (const auto& [name, tensor] : file.tensors) prefixed = prefixed || name.rfind(kModelPrefix, 0) == 0;
    load_model_tensors(path, file.tensors, model, prefixed);
}

}  // namespace tf::train
