// A stack of transformer blocks with an optional final norm (layer norm unless the config's "norm"
// names another of the norm table) — PyTorch's nn.TransformerEncoder / nn.TransformerDecoder shape,
// so parameters are named layers.0.…, layers.1.…, norm.…
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layers/norm_registry.h"
#include "layers/transformer_block.h"

namespace tf {

// The blocks themselves, registered as "0", "1", … under the stack's "layers".
class BlockList : public Module {
public:
    void add(std::shared_ptr<SequenceLayer> block);
    const std::vector<std::shared_ptr<SequenceLayer>>& blocks() const { return blocks_; }

private:
    std::vector<std::shared_ptr<SequenceLayer>> blocks_;
};

// The built-in block a stack repeats: TransformerEncoderBlock (self-attention, causal when the
// context says so, as in the decoder-only LM) or TransformerDecoderBlock (self + cross attention).
enum class TransformerBlockKind { encoder, decoder };

class TransformerStack : public Module {
public:
    using BlockFactory = std::function<std::shared_ptr<SequenceLayer>()>;
    TransformerStack(int64_t count, TransformerBlockKind kind, const TransformerBlockOptions& options,
                     bool final_norm, std::shared_ptr<Rng> dropout_rng, const InitScheme& init, Rng& rng, DType dtype);
    // `count` blocks from make_block (any (B, T, C) → (B, T, C) layer, e.g. one from the layer
    // registry), then the norm table's `norm` over width if final_norm.
    TransformerStack(int64_t count, const BlockFactory& make_block, int64_t width, bool final_norm, const std::string& norm,
                     double norm_eps, DType dtype);
    Tensor forward(const Tensor& x, const SequenceContext& context) const;  // (B, T, C) → (B, T, C)

    // Decoding (step_cache.h): the weakest of the blocks' modes, and why it cannot step ("" if it can).
    StepMode step_mode() const;
    std::string step_problem() const;
    // One cache per block, and the outputs (B, t, C) of t new positions after those the caches saw.
    std::unique_ptr<StepCaches> make_step_caches() const;
    Tensor forward_step(const Tensor& x_new, const SequenceContext& context, StepCaches& caches) const;

private:
    std::shared_ptr<BlockList> layers_;
    std::shared_ptr<Norm> norm_;  // null without a final norm
};

}  // namespace tf
