// The layer-level checks of `tapeformer theorems`: each runs a layer (or reads its table or its
// options) and says, with its numbers, whether the statement held.
#include "analysis/theorems/layer_theorems.h"

#include <algorithm>
#include <cmath>

#include "analysis/theorems/attention_twins.h"
#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/positional.h"

namespace tf {

namespace {

constexpr uint64_t kOutputWeightingSeed = 7;  // the fixed random r of the causal gradient check

// The largest |x| over positions [begin, end) of axis 1 of x (B, T, …).
double largest_between(const Tensor& x, int64_t begin, int64_t end) {
    double largest = 0;
    for (const double value : slice(x, 1, begin, end).to_vector()) largest = std::max(largest, std::abs(value));
    return largest;
}

}  // namespace

Measured check_permutation_equivariance(const SequenceMap& f, const Tensor& x, const std::vector<int64_t>& order) {
    NoGradGuard no_grad;
    const IndexTensor P(order);
    const double difference = max_relative_difference(f(index_select(x, 1, P)), index_select(f(x), 1, P));
    return {difference <= rounding_tolerance(x), "max relative difference |f(P·x) − P·f(x)| = " + short_number(difference) +
                                                     " (T = " + std::to_string(x.size(1)) + ")"};
}

Measured check_causal_independence(const SequenceMap& f, const Tensor& x, int64_t t) {
    const int64_t T = x.size(1);
    if (x.dim() != 3 || t < 0 || t + 1 >= T)
        throw ValueError("check_causal_independence: need x (B, T, C) and 0 ≤ t < T − 1, got " + to_string(x.shape()) +
                         " and t = " + std::to_string(t));
    Tensor changed = x.clone();  // inputs after t moved: x ← 1 − 2x there
    for (int64_t b = 0; b < x.size(0); ++b)
        for (int64_t s = t + 1; s < T; ++s)
            for (int64_t c = 0; c < x.size(2); ++c) changed.set({b, s, c}, 1 - 2 * x.at({b, s, c}));
    double prefix_change = 0, later_change = 0;
    {
        NoGradGuard no_grad;
        const Tensor change = f(changed) - f(x);  // (B, T, C)
        prefix_change = largest_between(change, 0, t + 1), later_change = largest_between(change, t + 1, T);
    }
    // L = Σ r ⊙ y[:, 0..t] for a fixed random r (a plain sum could hide a gradient that sums to 0).
    const Tensor leaf = x.clone().set_requires_grad();
    Tape::current().clear();
    const Tensor prefix = slice(f(leaf), 1, 0, t + 1);
    Rng rng(kOutputWeightingSeed);
    Tape::current().backward(sum(prefix * Tensor::uniform(prefix.shape(), -1, 1, rng, x.dtype())));
    const double later_gradient = largest_between(leaf.grad(), t + 1, T);
    const std::string cut = std::to_string(t);
    return {prefix_change == 0 && later_gradient == 0,
            "after changing x_j for j > " + cut + " of " + std::to_string(T) + ": max |Δy_i| for i ≤ " + cut + " = " +
                short_number(prefix_change) + " (for i > " + cut + ": " + short_number(later_change) + "), max |∂(r·y_{≤" + cut +
                "})/∂x_j| for j > " + cut + " = " + short_number(later_gradient)};
}

Measured check_sinusoidal_rotation(const Tensor& table) {
    const int64_t positions = table.size(0), C = table.size(1);
    if (table.dim() != 2 || C % 2 != 0)
        throw ShapeError("check_sinusoidal_rotation: expected a table (max_len, even C), got " + to_string(table.shape()));
    const std::vector<int64_t> shifts = {1, 3, 10};
    const std::vector<double> pe = table.to_vector();
    double worst = 0;
    int64_t compared = 0;
    // [PE(p+k, 2i)  ]   [ cos kω_i   sin kω_i] [PE(p, 2i)  ]
    // [PE(p+k, 2i+1)] = [−sin kω_i   cos kω_i] [PE(p, 2i+1)]      (sin(a + b), cos(a + b) expanded)
    for (const int64_t k : shifts)
        for (int64_t i = 0; i < C / 2; ++i) {
            const double angle = static_cast<double>(k) * SinusoidalPositionalEncoding::frequency(i, C);
            for (int64_t p = 0; p + k < positions; ++p) {
                const double sine = pe[p * C + 2 * i], cosine = pe[p * C + 2 * i + 1];
                const double rotated_sine = std::cos(angle) * sine + std::sin(angle) * cosine;
                const double rotated_cosine = -std::sin(angle) * sine + std::cos(angle) * cosine;
                worst = worse_of(worse_of(worst, std::abs(rotated_sine - pe[(p + k) * C + 2 * i])),
                                 std::abs(rotated_cosine - pe[(p + k) * C + 2 * i + 1]));
                ++compared;
            }
        }
    return {worst <= 1e-12, "max |T_k·PE(p) − PE(p + k)| = " + short_number(worst) + " over k = 1, 3, 10, every p < " +
                                std::to_string(positions) + " − k and the " + std::to_string(C / 2) + " frequency pairs of C = " +
                                std::to_string(C) + " (" + std::to_string(compared) + " pairs)"};
}

Measured check_parameter_count(const MultiHeadAttentionOptions& options, int64_t parameter_count) {
    const int64_t C = options.d_model, H = options.heads, H_kv = options.kv_heads == 0 ? H : options.kv_heads;
    const int64_t kv_width = H_kv * (C / H);  // the key and value projections' output width
    const bool biased = options.bias == Bias::learned;
    // W_Q, W_O: C×C each; W_K, W_V: (H_kv·D)×C each; biases C, H_kv·D, H_kv·D, C. With H_kv = H:
    // 4C² + 4C (4C² without biases).
    const int64_t formula = 2 * C * C + 2 * kv_width * C + (biased ? 2 * C + 2 * kv_width : 0);
    std::string written = H_kv == H ? "4·C² + 4·C" : "2·C² + 2·C·H_kv·D + 2·C + 2·H_kv·D";
    if (!biased) written = H_kv == H ? "4·C²" : "2·C² + 2·C·H_kv·D";
    return {formula == parameter_count, "parameter_count() = " + std::to_string(parameter_count) + ", " + written + " = " +
                                            std::to_string(formula) + " (C = " + std::to_string(C) + ", H = " + std::to_string(H) +
                                            ", H_kv = " + std::to_string(H_kv) + (biased ? ", with biases)" : ", no biases)")};
}

Measured check_gqa_equals_mha(MultiHeadAttention& grouped, MultiHeadAttention& full, const Tensor& x,
                              const SequenceContext& context) {
    NoGradGuard no_grad;
    const double difference = max_relative_difference(grouped(x, context), full(x, context));
    return {difference <= rounding_tolerance(x), "H_kv = " + std::to_string(grouped.options().kv_heads) + " of H = " +
                                                     std::to_string(grouped.options().heads) + ": max relative difference " +
                                                     short_number(difference)};
}

int64_t covering_window(int64_t T, bool causal) { return causal ? T : std::max<int64_t>(1, 2 * (T - 1)); }

Measured check_window_equals_full(MultiHeadAttention& full, const Tensor& x, int64_t window, bool causal) {
    MultiHeadAttentionOptions options = full.options();
    options.pattern = AttentionPattern::sliding_window, options.window = window;
    const auto windowed = attention_with_weights(full, options);
    NoGradGuard no_grad;
    const double difference = max_relative_difference((*windowed)(x, {.causal = causal}), full(x, {.causal = causal}));
    return {difference <= rounding_tolerance(x), std::string(causal ? "causal" : "non-causal") + " w = " + std::to_string(window) +
                                                     " over T = " + std::to_string(x.size(1)) + ": max relative difference " +
                                                     short_number(difference)};
}

}  // namespace tf
