// Checkpoint save/load on top of the safetensors reader and writer.
#include "train/checkpoint.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <sstream>

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

double parse_number(const std::string& text, const std::string& what, const std::string& path) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() && !(text == "nan"))
        throw CheckpointError(path + ": metadata '" + what + "' is not a number: \"" + text + "\"");
    return text == "nan" ? NAN : value;
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

Rng::State rng_state_from_text(const std::string& text, const std::string& source) {
    Rng::State state{};
    std::istringstream in(text);
    std::string word;
    std::size_t count = 0;
    while (std::getline(in, word, ',')) {
        if (count == 4 || word.size() != 18 || word.rfind("0x", 0) != 0 ||
            word.find_first_not_of("0123456789abcdef", 2) != std::string::npos)
            throw CheckpointError(source + ": RNG state \"" + text + "\" is not four 0x-prefixed 16-digit hex words");
        state[count++] = std::stoull(word, nullptr, 16);
    }
    if (count != 4) throw CheckpointError(source + ": RNG state \"" + text + "\" has " + std::to_string(count) + " words, expected 4");
    return state;
}

void save_checkpoint(const std::string& path, const SequenceModel& model, const Optimizer* optimizer,
                     const TrainingProgress& progress, const std::string& resolved_config) {
    std::map<std::string, Tensor> tensors;
    for (const auto& [name, tensor] : model.named_parameters()) tensors.emplace(kModelPrefix + name, tensor);
    if (optimizer)
        for (const auto& [name, tensor] : optimizer->state()) tensors.emplace(name, tensor);
    char number[64];
    const auto text = [&number](double value) {
        std::snprintf(number, sizeof number, "%.17g", value);
        return std::string(number);
    };
    const std::map<std::string, std::string> metadata = {
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
    write_safetensors(path, tensors, metadata);
}

namespace {
// The progress stored in a checkpoint's metadata.
TrainingProgress progress_of(const Safetensors& file, const std::string& path) {
    if (metadata_field(file, "format", path) != kFormat)
        throw CheckpointError(path + ": not a tapeformer checkpoint (format \"" + metadata_field(file, "format", path) + "\")");
    TrainingProgress progress;
    progress.step = static_cast<int64_t>(parse_number(metadata_field(file, "step", path), "step", path));
    progress.elapsed_seconds = parse_number(metadata_field(file, "elapsed_seconds", path), "elapsed_seconds", path);
    progress.best_valid_loss = parse_number(metadata_field(file, "best_valid_loss", path), "best_valid_loss", path);
    progress.best_step = static_cast<int64_t>(parse_number(metadata_field(file, "best_step", path), "best_step", path));
    progress.dropout_rng = rng_state_from_text(metadata_field(file, "dropout_rng", path), path);
    if (file.metadata.count("log_steps")) {   // absent in checkpoints written before it was saved: an empty row
        progress.log_loss_sum = parse_number(metadata_field(file, "log_loss_sum", path), "log_loss_sum", path);
        progress.log_steps = static_cast<int64_t>(parse_number(metadata_field(file, "log_steps", path), "log_steps", path));
    }
    try {
        progress.batcher = BatcherState::from_json(nlohmann::json::parse(metadata_field(file, "batcher", path)), path);
    } catch (const nlohmann::json::exception&) {
        throw CheckpointError(path + ": metadata 'batcher' is not valid JSON");
    } catch (const Error& error) {
        throw CheckpointError(std::string(error.what()));
    }
    return progress;
}
}  // namespace

TrainingProgress read_progress(const std::string& path) { return progress_of(read_safetensors(path), path); }

LoadedCheckpoint load_checkpoint(const std::string& path, SequenceModel& model, Optimizer* optimizer) {
    const Safetensors file = read_safetensors(path);
    LoadedCheckpoint loaded{progress_of(file, path), metadata_field(file, "config", path)};
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

void load_weights(const std::string& path, SequenceModel& model) {
    const Safetensors file = read_safetensors(path);
    bool prefixed = false;
    for (const auto& [name, tensor] : file.tensors) prefixed = prefixed || name.rfind(kModelPrefix, 0) == 0;
    load_model_tensors(path, file.tensors, model, prefixed);
}

}  // namespace tf::train
