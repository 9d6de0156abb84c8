// The backward of every op in one line each (autograd/op_formulas.h).
#include "autograd/op_formulas.h"

#include <algorithm>
#include <array>

namespace tf {

namespace {

constexpr std::string_view kElementwise = "docs/math/core_ops.md#elementwise-functions--srcautogradopsunarycpp-elementwisecpp";
constexpr std::string_view kShapes =
    "docs/math/core_ops.md#shapes-selection-masks-and-sums--srcautogradopsshapecpp-indexcpp-maskcpp-reducecpp";
constexpr std::string_view kMatmul = "docs/math/core_ops.md#matrix-product--matmul-in-srcautogradopsmatmulcpp";
constexpr std::string_view kSoftmax = "docs/math/core_ops.md#softmax-and-its-jacobian--softmax-log_softmax-in-srcautogradopssoftmaxcpp";
constexpr std::string_view kLayerNorm = "docs/math/core_ops.md#layer-normalisation--layer_norm-in-srcautogradopsnncpp-kernelslayer_normcpp";
constexpr std::string_view kTiled = "docs/math/fast_attention.md#2-tiled-attention-backward";

constexpr auto kOpFormulas = std::to_array<OpFormula>({
    {"add", "da = dy, db = dy (each summed over the axes it was broadcast along)", kElementwise},
    {"sub", "da = dy, db = −dy", kElementwise},
    {"mul", "da = dy ⊙ b, db = dy ⊙ a", kElementwise},
    {"div", "da = dy / b, db = −dy ⊙ a / b²", kElementwise},
    {"neg", "dx = −dy", kElementwise},
    {"add_scalar", "dx = dy", kElementwise},
    {"mul_scalar", "dx = s·dy", kElementwise},
    {"exp", "dx = dy ⊙ y", kElementwise},
    {"log", "dx = dy / x", kElementwise},
    {"sqrt", "dx = dy / (2y)", kElementwise},
    {"pow", "dx = dy ⊙ a·x^(a−1)", kElementwise},
    {"tanh", "dx = dy ⊙ (1 − y²)", kElementwise},
    {"sigmoid", "dx = dy ⊙ y(1 − y)", kElementwise},
    {"relu", "dx = dy ⊙ [x > 0]", kElementwise},
    {"gelu", "dx = dy ⊙ (Φ(x) + x·φ(x))", kElementwise},
    {"sum", "dx = dy broadcast back over the summed axes", kShapes},
    {"max", "dx = dy at the (first) position of the maximum, 0 elsewhere", kShapes},
    {"matmul", "dA = dC·Bᵀ, dB = Aᵀ·dC", kMatmul},
    {"linear", "g = dy (⊙ [y > 0] after a ReLU); dx = g·W, dW = gᵀ·x, db = Σ_rows g", kMatmul},
    {"reshape", "dx = dy reshaped back to x's shape", kShapes},
    {"transpose", "dx = dy with the two axes swapped back", kShapes},
    {"permute", "dx = dy permuted by the inverse permutation", kShapes},
    {"concat", "each part's dx = its slice of dy", kShapes},
    {"slice", "dx = dy placed back into zeros", kShapes},
    {"index_select", "dW[v] = Σ of dy over the positions that picked row v",
     "docs/math/core_ops.md#embedding-lookup--embedding-index_select-in-srcautogradopsindexcpp"},
    {"gather", "dx[…, idx[…, j]] += dy[…, j]", kShapes},
    {"softmax", "dx = y ⊙ (dy − rowsum(y ⊙ dy))", kSoftmax},
    {"log_softmax", "dx = dy − softmax(x) ⊙ rowsum(dy)", kSoftmax},
    {"masked_fill", "dx = dy where not masked, 0 where masked", kShapes},
    {"where", "da = dy where cond, db = dy elsewhere", kShapes},
    {"layer_norm", "dx = r·(g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)), g = dy ⊙ γ; dγ = Σ dy ⊙ x̂, dβ = Σ dy", kLayerNorm},
    {"add_layer_norm", "ds = layer_norm's dx at s = x + r; dx = dr = ds", kLayerNorm},
    {"dropout", "dx = dy ⊙ m / (1 − p)", "docs/math/core_ops.md#dropout--dropout-in-srcautogradopsnncpp"},
    {"cross_entropy", "dlogits = (softmax(logits) − q) / N at the N targets that count",
     "docs/math/core_ops.md#cross-entropy-with-label-smoothing--cross_entropy-in-srcautogradopsnncpp"},
    {"tiled_attention", "per tile: P = exp(S/τ − L), dV += Pᵀ·dO, dS = P ⊙ (dO·Vᵀ − Δ)/τ, dQ += dS·K, dK += dSᵀ·Q", kTiled},
    {"tiled_self_attention", "tiled_attention's, on Q, K, V read in place from one (B, T, 3C) projection", kTiled},
    {"tiled_cross_attention", "tiled_attention's, on Q (B, T, C) and K, V read in place from one (B, S, 2C) projection", kTiled},
    {"causal_prefix_attention", "dq_t = S_t·dy_t; dk_j = R_j·v_j, dv_j = R_jᵀ·k_j with R_j = Σ_{t≥j} q_t dy_tᵀ",
     "docs/math/fast_attention.md#3-linear-attention-katharopoulos-et-al-2020"},
    {"additive_scores", "G_j = δ_j v ⊙ (1 − H_j²); dK_j = G_j, dq = Σ_j G_j, dv = Σ δ_j H_j",
     "docs/math/recurrent.md#decoder-attention--srclayersattentionadditive_attentionhcpp"},
});

}  // namespace

std::span<const OpFormula> op_formulas() { return kOpFormulas; }

const OpFormula* find_op_formula(std::string_view op) {
    const auto found = std::find_if(kOpFormulas.begin(), kOpFormulas.end(), [&](const OpFormula& row) { return row.op == op; });
    return found == kOpFormulas.end() ? nullptr : &*found;
}

}  // namespace tf
