// ForwardObserver: what a forward pass is asked to report or to bend, kept out of the layers.
// Analysis asks for the attention weights (each layer records them under its dotted name) and the
// input vectors (for ∂L/∂x); the temperature curriculum multiplies every softmax attention's τ.
// It travels with the pass — ModelInput::observer for a model, SequenceContext::observer for a
// layer — so a layer that computes attention weights shows up in `analyze` by recording them here,
// with no registration anywhere else. A null observer is a plain forward.
#pragma once
#include <string>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

// Which of a seq2seq model's sequences a tensor's positions belong to (a language model's are the target).
enum class SequenceSide { source, target };

// One attention layer's weights from one forward, detached from the tape.
struct AttentionRecord {
    std::string name;   // the layer's dotted name, e.g. "decoder.layers.0.cross_attn"
    std::string kind;   // "self", "cross", or a recurrent decoder's scoring: "additive", "luong_dot", "luong_general"
    SequenceSide queries_from = SequenceSide::target;   // what the rows of the weights are positions of
    SequenceSide keys_from = SequenceSide::target;      // and the columns
    Tensor weights;     // (B, H, T, S)
    Tensor queries{}, keys{};  // (B, H, T, D) and (B, H_kv, S, D) for dot-product attention; else undefined
};

struct ForwardObserver {
    // What the pass is asked for.
    bool record_attention = false;  // attention layers append their weights to `attention`
    bool probe_inputs = false;      // the model keeps its input vectors in `probed_inputs`, with retain_grad
    double temperature_scale = 1.0; // τ of every softmax attention is multiplied by this (1 = as configured)

    // What the pass reports.
    std::vector<AttentionRecord> attention{};  // in forward order
    Tensor probed_inputs{};  // (B, S, C): the source embeddings with positions (the target ones for an LM)
};

// The factor on τ for a pass with this observer (1 without one).
inline double temperature_scale(const ForwardObserver* observer) {
    return observer ? observer->temperature_scale : 1.0;
}

// True when the pass with this observer wants attention weights recorded.
inline bool records_attention(const ForwardObserver* observer) { return observer && observer->record_attention; }

}  // namespace tf
