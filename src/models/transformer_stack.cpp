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
          options.attention.d_model, final_norm, options.norm_eps, dtype) {}

TransformerStack::TransformerStack(int64_t count, const BlockFactory& make_block, int64_t width, bool final_norm,
                                   double norm_eps, DType dtype) {
    layers_ = register_module("layers", std::make_shared<BlockList>());
    for (int64_t i = 0; i < count; ++i) layers_->add(make_block());
    if (final_norm) norm_ = register_module("norm", std::make_shared<LayerNorm>(width, norm_eps, dtype));
}

Tensor TransformerStack::forward(const Tensor& x, const SequenceContext& context) const {
    Tensor h = x;
    for (const auto& block : layers_->blocks()) h = (*block)(h, context);
    return norm_ ? (*norm_)(h) : h;
}

}  // namespace tf
