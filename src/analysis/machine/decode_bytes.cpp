// Counting what a decoding step reads: parameters by name, the key/value cache by the model's shape.
#include "analysis/machine/decode_bytes.h"

#include <string>

namespace tf::analysis {

namespace {

bool starts_with(const std::string& name, const std::string& prefix) { return name.rfind(prefix, 0) == 0; }

bool ends_with(const std::string& name, const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool contains(const std::string& name, const std::string& part) { return name.find(part) != std::string::npos; }

// Parameters used once per sequence, before the first step (the encoder side, the projections of
// the encoder's states).
bool read_once_per_sequence(const std::string& name) {
    return starts_with(name, "encoder.") || starts_with(name, "src_embedding.") || starts_with(name, "bridge.") ||
           starts_with(name, "attention.W_k.") || contains(name, "cross_attn.k_proj.") ||
           contains(name, "cross_attn.v_proj.");
}

// Tables a step gathers one row of: token embeddings and learned positions.
bool gathered_table(const std::string& name) {
    return ends_with(name, "embedding.weight") || ends_with(name, "positions.weight");
}

// 2 (key and value) · H_kv·D floats of f32 per position, per attention layer.
int64_t cache_bytes_per_position(const TransformerOptions& t) {
    const int64_t kv_heads = t.kv_heads > 0 ? t.kv_heads : t.heads;
    return 2 * kv_heads * (t.d_model / t.heads) * int64_t(sizeof(float));
}

}  // namespace

int64_t step_weight_bytes(const SequenceModel& model) {
    int64_t bytes = 0;
    for (const auto& [name, parameter] : model.named_parameters()) {
        if (read_once_per_sequence(name)) continue;
        const int64_t whole = static_cast<int64_t>(parameter.bytes());
        bytes += gathered_table(name) ? whole / parameter.shape()[0] : whole;
    }
    return bytes;
}

double mean_step_state_bytes(const ModelConfig& config, int64_t source_length, int64_t generated,
                             int64_t held_state_bytes) {
    const TransformerOptions& t = config.transformer;
    const bool builtin_attention = !t.self_attention.chosen() && !t.custom_block.chosen();
    if (config.type == ModelKind::rnn_seq2seq || !builtin_attention) return double(held_state_bytes);
    const double mean_positions = 0.5 * double(generated + 1);  // step i (from 0) reads i + 1 positions
    if (config.type == ModelKind::lm) return double(t.layers * cache_bytes_per_position(t)) * mean_positions;
    return double(t.decoder_layers * cache_bytes_per_position(t)) * (mean_positions + double(source_length));
}

double bandwidth_fraction(double bytes_per_token, double tokens_per_second, double read_bandwidth_gbs) {
    if (read_bandwidth_gbs <= 0) return 0;
    return bytes_per_token * tokens_per_second / (read_bandwidth_gbs * 1e9);
}

}  // namespace tf::analysis
