// SequenceModel: what the trainer, the decoders and the analysis tools know of a model. A model
// maps a batch of token ids to next-token logits (teacher forcing), and can decode step by step.
// Seq2seq models read src and predict tgt; the decoder-only LM reads only tgt_in.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "autograd/error.h"
#include "config/enum_names.h"
#include "layers/forward_observer.h"
#include "layers/module.h"

namespace tf {

struct ModelInput {
    IndexTensor src;                   // (B, S) source ids; empty for a language model
    std::vector<int64_t> src_lengths;  // B valid source lengths
    Tensor src_padding_mask;           // (B, S) f32, 1 = padding
    IndexTensor tgt_in;                // (B, T) decoder input: <bos> then the target shifted right
    std::vector<int64_t> tgt_lengths;
    Tensor tgt_padding_mask;           // (B, T) f32, 1 = padding
    ForwardObserver* observer = nullptr;  // not owned: analysis records, the curriculum's τ factor
};

// Whether a transformer decodes with a key/value cache (layers/step_cache.h): "decode.cache" in
// configs, --cache on the command line. A recurrent decoder steps its cells whatever this says.
enum class DecodeCache {
    automatic,  // "auto": cache when every block can, else re-run the prefix at each step
    on,         // "on": cache, and refuse a model with a block that cannot
    off,        // "off": re-run the prefix at each step (the readable baseline `bench` compares with)
};
inline constexpr EnumName<DecodeCache> kDecodeCacheNames[] = {
    {DecodeCache::automatic, "auto"}, {DecodeCache::on, "on"}, {DecodeCache::off, "off"}};
inline std::span<const EnumName<DecodeCache>> enum_names(DecodeCache) { return kDecodeCacheNames; }

// What one model keeps between decoding steps, as its own named struct (TransformerDecodeState,
// RnnDecodeState; a key/value cache grows here). Every tensor in it has the batch (or beam) as its
// first axis, and batch_tensors lists them, so beam search can reorder hypotheses by selecting
// rows whatever the model.
struct ModelDecodeState {
    virtual ~ModelDecodeState() = default;
    virtual std::vector<Tensor*> batch_tensors() = 0;
};

// What the decoders hold: the model's own state (null for a model that keeps none) and the
// source lengths.
struct DecodeState {
    std::unique_ptr<ModelDecodeState> model_state;
    std::vector<int64_t> src_lengths;
};

// The model's own state inside `state`, as the State its begin_decode made.
template <class State>
State& model_state_of(DecodeState& state) {
    auto* own = dynamic_cast<State*>(state.model_state.get());
    if (!own) throw ValueError("decode_step: the state was not made by this model's begin_decode");
    return *own;
}

class SequenceModel : public Module {
public:
    // Teacher-forced next-token logits, (B, T, V).
    virtual Tensor forward(const ModelInput& input) = 0;
    // Encodes the source once (nothing, for an LM) and returns the state decode_step needs, with a
    // key/value cache as `cache` says (throws ValueError for DecodeCache::on when it cannot).
    virtual DecodeState begin_decode(const ModelInput& input, DecodeCache cache) = 0;
    // Logits (B, V) for the token after `prefix` (B, t) — prefix starts with <bos>. With a cache,
    // each call's prefix extends the previous call's (it may add several tokens, as a prompt does).
    virtual Tensor decode_step(DecodeState& state, const IndexTensor& prefix) = 0;
    virtual int64_t vocab_size() const = 0;
    virtual bool is_language_model() const { return false; }
    // The generator every dropout in the model draws from (its state goes into checkpoints).
    const std::shared_ptr<Rng>& dropout_rng() const { return dropout_rng_; }

protected:
    explicit SequenceModel(std::shared_ptr<Rng> dropout_rng) : dropout_rng_(std::move(dropout_rng)) {}
    // Models call this on their input vectors x (B, S, C): when the observer asks, x is kept with
    // retain_grad, so gradient analysis reads ∂L/∂x_j from observer->probed_inputs.grad() after backward.
    static Tensor probe(Tensor inputs, ForwardObserver* observer) {
        if (observer && observer->probe_inputs) {
            inputs.retain_grad();
            observer->probed_inputs = inputs;
        }
        return inputs;
    }

private:
    std::shared_ptr<Rng> dropout_rng_;
};

// The (B, to − from) columns [from, to) of ids (B, T): the tokens a cached decoder has not yet seen.
IndexTensor token_columns(const IndexTensor& ids, int64_t from, int64_t to);

// Selects rows of every state tensor: hypothesis i of the new state is row rows[i] of the old.
void reorder_decode_state(DecodeState& state, const std::vector<int64_t>& rows);

}  // namespace tf
