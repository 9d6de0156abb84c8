// Transformer stacks.
#include "models/transformer_stack.h"

namespace tf {

void BlockList::add(std::shared_ptr<SequenceLayer> block) {
    blocks_.push_back(register_module(std::to_string(blocks_.size()), std::move(block)));
}

TransformerStack::TransformerStack(int64_t count, TransformerBlockKind kind, const TransformerBlockOptions& options,
                                   bool final_norm, std::shared_ptr<Rng> dropout_rng, const InitScheme& init, Rng& rng, DType dtype)
    : TransformerStack(
          count,
          [&]() -> std::shared_ptr<SequenceLayer> {
              if (kind == TransformerBlockKind::decoder)
                  return std::make_shared<TransformerDecoderBlock>(options, dropout_rng, init, rng, dtype);
              return std::make_shared<TransformerEncoderBlock>(options, dropout_rng, init, rng, dtype);
          },
          options.attention.d_model, final_norm, options.norm, options.norm_eps, dtype) {}

TransformerStack::TransformerStack(int64_t count, const BlockFactory& make_block, int64_t width, bool final_norm,
                                   const std::string& norm, double norm_eps, DType dtype) {
    layers_ = register_module("layers", std::make_shared<BlockList>());
    for (int64_t i = 0; i < count; ++i) layers_->add(make_block());
    if (final_norm) norm_ = register_module("norm", norm_type(norm).make(width, norm_eps, dtype));
}

Tensor TransformerStack::forward(const Tensor& x, const SequenceContext& context) const {
    Tensor h = x;
    for (const auto& block : layers_->blocks()) h = (*block)(h, context);
    return norm_ ? (*norm_)(h) : h;
}

StepMode TransformerStack::step_mode() const {
    std::vector<StepMode> modes;
    for (const auto& block : layers_->blocks()) modes.push_back(block->step_mode());
    return weakest_step_mode(modes);
}

std::string TransformerStack::step_problem() const {
    for (const auto& block : layers_->blocks())
        if (block->step_mode() == StepMode::reruns_prefix) return block->name() + " cannot decode incrementally";
    return "";
}

std::unique_ptr<StepCaches> TransformerStack::make_step_caches() const {
    auto caches = std::make_unique<StepCaches>();
    for (const auto& block : layers_->blocks()) caches->parts.push_back(block->make_step_cache());
    return caches;
}

Tensor TransformerStack::forward_step(const Tensor& x_new, const SequenceContext& context, StepCaches& caches) const {
    Tensor h = x_new;
    for (std::size_t i = 0; i < layers_->blocks().size(); ++i) h = layers_->blocks()[i]->step(h, context, caches.parts[i].get());
    return norm_ ? (*norm_)(h) : h;
}

}  // namespace tf
