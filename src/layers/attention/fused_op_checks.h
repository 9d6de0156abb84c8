// The gradcheck cases of the fused attention ops. These ops record their own tape entries with
// hand-written backwards, like the ops of autograd/ops.h, but live beside the layers that use them;
// their cases join the same table, so `tapeformer gradcheck tiled_attention` checks one and the
// suite's table-covers-every-op test covers them.
#pragma once
#include <array>
#include <string_view>
#include <vector>

#include "autograd/op_checks.h"

namespace tf {

// The fused ops of layers/attention/: each must have a case in fused_attention_op_checks().
inline constexpr auto kFusedOpNames = std::to_array<std::string_view>({"tiled_attention", "tiled_self_attention", "tiled_cross_attention",
                                                                   "causal_prefix_attention", "additive_scores"});

std::vector<OpCheck> fused_attention_op_checks();

// op_checks() followed by fused_attention_op_checks(): the whole table.
const std::vector<OpCheck>& all_op_checks();

}  // namespace tf
