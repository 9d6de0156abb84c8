// The catalogue of statements behind `tapeformer theorems`: for each, what it says, where the math
// is, whether it is expected to hold, and how it is measured on one set of attention weights.
#include "analysis/theorems/theorems.h"

#include <memory>
#include <numeric>
#include <regex>

#include "analysis/theorems/attention_theorems.h"
#include "analysis/theorems/attention_twins.h"
#include "analysis/theorems/layer_theorems.h"
#include "analysis/theorems/query_key_form.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/masks.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/attention/tiled_attention.h"
#include "layers/positional.h"

namespace tf {

namespace {

// The random layer and its inputs: C, H, B, T. Small, so the whole command takes well under a second.
constexpr int64_t kWidth = 16, kHeads = 4, kBatch = 2, kPositions = 6;
// The √d_k Monte Carlo: N pairs of d_k-wide vectors (relative standard error of the variance ≈ 0.65%).
constexpr int64_t kPairs = 50000, kKeyWidth = 64;

// One set of attention weights the statements are measured on.
struct Subject {
    std::string label;                          // "random" or "trained encoder.layers.0.self_attn"
    std::shared_ptr<MultiHeadAttention> layer;  // f64 softmax attention (attention_twins.h)
    Tensor x;                                   // (B, T, C), N(0, 1)
    bool random = false;                        // random weights: GQA is also checked at H_kv < H
    Rng rng;
};

std::shared_ptr<MultiHeadAttention> random_attention(int64_t kv_heads, Rng& rng) {
    auto layer = std::make_shared<MultiHeadAttention>(
        MultiHeadAttentionOptions{.d_model = kWidth, .heads = kHeads, .kv_heads = kv_heads}, std::make_shared<Rng>(0),
        InitScheme{}, rng, DType::f64);
    randomize_weights(*layer, 1 / std::sqrt(static_cast<double>(kWidth)), rng);
    layer->eval();
    return layer;
}

HeadProjections heads_of(Subject& s) {
    NoGradGuard no_grad;
    return project_heads(*s.layer, s.x);
}

Measured rows_sum_to_one(Subject& s) {
    const HeadProjections h = heads_of(s);
    NoGradGuard no_grad;
    return check_rows_sum_to_one(attention_weights(h.Q, h.K, {.causal = true}, h.tau));
}

Measured outputs_in_value_hull(Subject& s) {
    const HeadProjections h = heads_of(s);
    NoGradGuard no_grad;
    const Tensor O = scaled_dot_product_attention(h.Q, h.K, h.V, {.causal = true}, h.tau);
    return check_outputs_in_value_hull(h.V, O, causal_mask(h.Q.size(2), h.K.size(2)));
}

Measured permutation_equivariance(Subject& s) {
    std::vector<int64_t> order(static_cast<std::size_t>(s.x.size(1)));
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[s.rng.below(static_cast<int64_t>(i) + 1)]);
    return check_permutation_equivariance([&](const Tensor& x) { return (*s.layer)(x, {}); }, s.x, order);
}

Measured causal_independence(Subject& s) {
    return check_causal_independence([&](const Tensor& x) { return (*s.layer)(x, {.causal = true}); }, s.x, s.x.size(1) / 2 - 1);
}

Measured temperature_limits(Subject& s) {
    const HeadProjections h = heads_of(s);
    NoGradGuard no_grad;
    return check_temperature_limits([&](double tau) { return attention_weights(h.Q, h.K, {}, tau); });
}

Measured dot_product_variance(Subject& s) {
    const Tensor q = Tensor::normal({kPairs, kKeyWidth}, 0, 1, s.rng, DType::f64);
    const Tensor k = Tensor::normal({kPairs, kKeyWidth}, 0, 1, s.rng, DType::f64);
    return check_dot_product_variance(q, k);
}

Measured sinusoidal_rotation(Subject&) {
    const SinusoidalPositionalEncoding positions(64, kWidth, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    return check_sinusoidal_rotation(positions.table());
}

Measured parameter_count(Subject& s) { return check_parameter_count(s.layer->options(), s.layer->parameter_count()); }

// At the subject's H_kv (H for the random layer: the statement itself) and, on random weights, at
// H_kv < H, where the equivalence needs the repeated heads.
Measured gqa_equals_mha(Subject& s) {
    std::vector<std::shared_ptr<MultiHeadAttention>> grouped = {s.layer};
    if (s.random)
        for (const int64_t kv_heads : {kHeads / 2, int64_t{1}}) grouped.push_back(random_attention(kv_heads, s.rng));
    Measured all{true, ""};
    for (const auto& layer : grouped) {
        const Measured one = check_gqa_equals_mha(*layer, *mha_repeating_kv_heads(*layer), s.x);
        all.holds = all.holds && one.holds;
        all.numbers += (all.numbers.empty() ? "" : "; ") + one.numbers;
    }
    return all;
}

// Equal at the covering window, and different one key narrower (so the window is really applied).
Measured window_equals_full(Subject& s) {
    const int64_t T = s.x.size(1);
    Measured all{true, ""};
    for (const bool causal : {true, false}) {
        const int64_t covering = covering_window(T, causal);
        const Measured equal = check_window_equals_full(*s.layer, s.x, covering, causal);
        const Measured narrower = check_window_equals_full(*s.layer, s.x, covering - 1, causal);
        all.holds = all.holds && equal.holds && !narrower.holds;
        all.numbers += (all.numbers.empty() ? "" : "; ") + equal.numbers + " (w = " + std::to_string(covering - 1) +
                       (narrower.holds ? ": no different)" : ": differs)");
    }
    return all;
}

Measured tiled_matches_composed(Subject& s) {
    const HeadProjections h = heads_of(s);
    // Tiles of 4 queries and 5 keys divide neither T nor S, so partial tiles are exercised too.
    const TiledAttentionOptions options{.causal = true, .temperature = h.tau, .query_tile = 4, .key_tile = 5};
    return check_tiled_matches_composed(
        [&](const Tensor& Q, const Tensor& K, const Tensor& V) { return tiled_attention(Q, K, V, options); },
        [&](const Tensor& Q, const Tensor& K, const Tensor& V) { return composed_attention(Q, K, V, options); }, h.Q, h.K, h.V);
}

Measured analytic_backward(Subject& s) {
    const HeadProjections h = heads_of(s);
    return check_analytic_backward(
        [&](const Tensor& Q, const Tensor& K, const Tensor& V) { return scaled_dot_product_attention(Q, K, V, {}, h.tau); },
        h.Q, h.K, h.V, h.tau);
}

Measured query_key_psd(Subject& s) { return check_query_key_psd(*s.layer); }

// weights: a statement about a model's weights, measured on each subject; mathematics: measured once.
enum class Scope { weights, mathematics };
enum class Expected { holds, fails };

// The key number of a statement: `label` and the first group `pattern` captures in each set of
// weights' numbers ("max |Σα − 1| = " and "max \\|Σ_j α_ij − 1\\| = ([^ ,;]+)").
struct KeyNumber {
    const char* label;
    const char* pattern;
};

struct Theorem {
    const char* statement;
    const char* short_statement;
    KeyNumber key;
    const char* math_ref;
    Scope scope;
    Expected expected;
    Measured (*measure)(Subject&);
};

constexpr const char* kConvexCombination =
    "docs/math/theory.md#1-an-attention-output-is-a-convex-combination-of-the-values-it-can-see";
constexpr const char* kMultiHead =
    "docs/math/attention.md#multi-head-attention-gqa-mqa--srclayersattentionmulti_head_attentionhcpp";

const std::vector<Theorem>& theorems() {
    static const std::vector<Theorem> table = {
        {"attention weights are non-negative and each row sums to one",
         "attention weights ≥ 0, each row sums to 1", {"max |Σα − 1| = ", R"(max \|Σ_j α_ij − 1\| = ([^ ,;]+))"},
         kConvexCombination,
         Scope::weights, Expected::holds, rows_sum_to_one},
        {"each attention output lies in the convex hull of the values it sees",
         "each output lies in the hull of its values", {"inside the hull: ", R"(^(all \d+|\d+ of \d+) output coordinates)"},
         kConvexCombination,
         Scope::weights, Expected::holds, outputs_in_value_hull},
        {"self-attention without positions is permutation equivariant: f(P·x) = P·f(x)",
         "no positions: f(P·x) = P·f(x)", {"max rel. diff. ", R"(P·f\(x\)\| = ([^ ,;]+))"},
         "docs/math/theory.md#2-without-positions-self-attention-is-permutation-equivariant",
         Scope::weights, Expected::holds, permutation_equivariance},
        {"under a causal mask, output i depends on no input j > i (value and gradient)",
         "causal mask: output i ignores inputs j > i", {"max |Δy_i≤t| = ", R"(for i ≤ \d+ = ([^ ,;]+))"},
         "docs/math/theory.md#9-under-a-causal-mask-output-i-ignores-the-inputs-after-i",
         Scope::weights, Expected::holds, causal_independence},
        {"softmax(s/τ) tends to the one-hot argmax as τ → 0 and to uniform as τ → ∞",
         "softmax(s/τ): one-hot at τ → 0, uniform at ∞", {"KL to uniform at τ = 1e8: ", R"(KL\(α_i ‖ uniform\) = .*, ([^ ,;()]+))"},
         "docs/math/theory.md#3-the-temperatures-two-limits",
         Scope::weights, Expected::holds, temperature_limits},
        {"for independent unit-variance q, k: Var(q·k) = d_k and Var(q·k/√d_k) = 1",
         "Var(q·k/√d_k) = 1 for unit-variance q, k", {"Var(q·k/√d_k) = ", R"(Var\(q·k/√d_k\) = ([^ ,;]+))"},
         "docs/math/theory.md#10-why-the-scores-are-divided-by-the-square-root-of-d_k",
         Scope::mathematics, Expected::holds, dot_product_variance},
        {"sinusoidal positions: PE(p + k) is a rotation of PE(p) per frequency pair that depends only on k",
         "sinusoidal PE(p + k) is a rotation of PE(p)", {"max |T_k·PE(p) − PE(p + k)| = ", R"(PE\(p \+ k\)\| = ([^ ,;]+))"},
         "docs/math/recurrent.md#positional-encodings--srclayerspositionalhcpp",
         Scope::mathematics, Expected::holds, sinusoidal_rotation},
        {"multi-head attention has 4·d² + 4·d parameters (with biases)",
         "MHA has 4·d² + 4·d parameters (with biases)", {"parameter_count() = ", R"(parameter_count\(\) = (\d+))"},
         kMultiHead,
         Scope::weights, Expected::holds, parameter_count},
        {"GQA with kv_heads = heads is MHA: same weights, same output (and GQA = MHA with repeated K/V heads)",
         "GQA with kv_heads = heads is MHA", {"max rel. diff. ", R"(max relative difference ([^ ,;]+))"},
         kMultiHead,
         Scope::weights, Expected::holds, gqa_equals_mha},
        {"a sliding window that hides no key (causal w ≥ T; non-causal w ≥ 2(T − 1)) is full attention",
         "a window that hides no key is full attention", {"max rel. diff. ", R"(max relative difference ([^ ,;]+))"},
         "docs/math/attention.md#masks--srclayersattentionmaskshcpp",
         Scope::weights, Expected::holds, window_equals_full},
        {"tiled online-softmax attention equals the composed softmax(Q·Kᵀ/τ)·V: values and gradients",
         "tiled attention = composed, with gradients", {"max rel. diff. of O ", R"(max relative difference O ([^ ,;]+))"},
         "docs/math/fast_attention.md#2-tiled-attention-backward",
         Scope::weights, Expected::holds, tiled_matches_composed},
        {"the analytic backward of scaled dot-product attention equals the tape's",
         "analytic attention backward = the tape's", {"max rel. diff. of dQ ", R"(dQ ([^ ,;]+))"},
         "docs/math/attention.md#scaled-dot-product-attention--srclayersattentionscaled_dot_producthcpp",
         Scope::weights, Expected::holds, analytic_backward},
        {"W_Q·W_Kᵀ is positive semi-definite (attention as a learned Mahalanobis metric)",
         "W_Q·W_Kᵀ is positive semi-definite", {"λ_min(½(M + Mᵀ)) = ", R"(λ_min\(½\(M \+ Mᵀ\)\) = ([^ ,;]+))"},
         "docs/math/theory.md#11-the-query-key-matrix-w_q-w_kt-is-not-positive-semi-definite",
         Scope::weights, Expected::fails, query_key_psd},
    };
    return table;
}

std::vector<Subject> subjects(const TheoremOptions& options) {
    Rng rng(options.seed);
    std::vector<Subject> all;
    auto random = random_attention(kHeads, rng);
    const Tensor x = Tensor::normal({kBatch, kPositions, kWidth}, 0, 1, rng, DType::f64);
    all.push_back({"random", random, x, true, Rng(rng.next_u64())});
    if (!options.trained) return all;
    const MultiHeadAttention* trained = first_attention(*options.trained);
    if (!trained) return all;
    const int64_t C = trained->options().d_model;
    all.push_back({"trained " + trained->name(), softmax_twin(*trained),
                   Tensor::normal({kBatch, kPositions, C}, 0, 1, rng, DType::f64), false, Rng(rng.next_u64())});
    return all;
}

}  // namespace

std::vector<TheoremCheck> run_theorems(const TheoremOptions& options) {
    std::vector<Subject> measured_on = subjects(options);
    const bool trained_without_attention = options.trained && measured_on.size() == 1;
    std::vector<TheoremCheck> checks;
    for (const Theorem& theorem : theorems()) {
        const bool about_weights = theorem.scope == Scope::weights;
        TheoremCheck check{theorem.statement, theorem.short_statement, theorem.key.label, theorem.math_ref, "", true,
                           theorem.expected == Expected::holds};
        const std::regex key_pattern(theorem.key.pattern);
        for (Subject& subject : measured_on) {
            if (!about_weights && !subject.random) continue;
            const Measured one = theorem.measure(subject);
            check.holds = check.holds && one.holds;
            const std::string label = about_weights ? subject.label + ": " : "";
            check.measured += (check.measured.empty() ? "" : "; ") + label + one.numbers;
            std::smatch key;
            const std::string value = std::regex_search(one.numbers, key, key_pattern) ? key.str(1) : "?";
            // "= 2.2e-16 (random), 3.1e-08 (trained)": each value named once a trained layer is measured too
            const bool named = about_weights && measured_on.size() > 1;
            check.key_number += (subject.random ? "" : ", ") + value + (named ? " (" + subject.label.substr(0, subject.label.find(' ')) + ")" : "");
        }
        if (about_weights && trained_without_attention)
            check.measured += "; trained: not checked, the run has no multi_head_attention layer";
        if (!check.holds && !check.expected_to_hold)
            check.measured = "the claim is false in general: counterexample, " + check.measured;
        checks.push_back(check);
    }
    return checks;
}

config::Json theorem_json(std::size_t number, const TheoremCheck& check) {
    return {{"number", number},
            {"statement", check.statement},
            {"math_ref", check.math_ref},
            {"measured", check.measured},
            {"holds", check.holds},
            {"expected_to_hold", check.expected_to_hold},
            {"as_expected", check.as_expected()}};
}

}  // namespace tf
