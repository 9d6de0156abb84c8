// `tapeformer theorems` and its checks: every statement comes out as expected on random weights;
// each check fails on a case built to break it, so none can pass trivially; the PSD counterexample
// holds up when recomputed from the stored weights; every docs/math/ reference names an existing
// section; and the command's lines on a tiny trained run, in process and through the binary.
#include "catch.h"
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/theorems/attention_theorems.h"
#include "analysis/theorems/attention_twins.h"
#include "analysis/theorems/layer_theorems.h"
#include "analysis/theorems/query_key_form.h"
#include "analysis/theorems/symmetric_eigen.h"
#include "analysis/theorems/theorems.h"
#include "attention_helpers.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "markdown_anchor.h"
#include "layers/attention/scaled_dot_product.h"
#include "layers/attention/tiled_attention.h"
#include "layers/positional.h"
#include "run_helpers.h"
#include "train/run_dir.h"
#include "train/run_loader.h"
#include "util/files.h"
#include "source_paths.h"

using namespace tf;
using Catch::Contains;
using test::TempDir;

namespace {

struct Qkv {
    Tensor Q, K, V;
};

// Q (2, 2, T, 3), K (2, 2, S, 3), V (2, 2, S, Dv).
Qkv random_qkv(int64_t T, int64_t S, uint64_t seed, int64_t Dv = 4) {
    Rng rng(seed);
    return {test::random_tensor({2, 2, T, 3}, rng), test::random_tensor({2, 2, S, 3}, rng),
            test::random_tensor({2, 2, S, Dv}, rng)};
}

std::shared_ptr<MultiHeadAttention> random_attention(MultiHeadAttentionOptions options, uint64_t seed) {
    auto layer = test::make_attention(options, seed);
    test::randomize_parameters(*layer, seed + 1);
    return layer;
}

Tensor random_x(int64_t T, uint64_t seed) {
    Rng rng(seed);
    return test::random_tensor({2, T, 8}, rng);
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("every statement comes out as expected on random weights, for several seeds", "[property][theorems]") {
    for (const uint64_t seed : {1, 2, 3}) {
        const std::vector<TheoremCheck> checks = run_theorems({.seed = seed});
        REQUIRE(checks.size() == 13);
        for (const TheoremCheck& check : checks) {
            INFO("seed " << seed << ": " << check.statement << " | " << check.measured);
            CHECK(check.as_expected());
        }
        CHECK_FALSE(checks.back().holds);
        CHECK_THAT(checks.back().measured, Contains("the claim is false in general: counterexample"));
    }
}

TEST_CASE("max_relative_difference counts a NaN or an infinity on one side as an infinite difference", "[unit][theorems]") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const auto difference = [](std::vector<double> a, std::vector<double> b) {
        const Shape shape{static_cast<int64_t>(a.size())};
        return max_relative_difference(Tensor::from_data(a, shape, DType::f64), Tensor::from_data(b, shape, DType::f64));
    };
    CHECK(difference({1, 3}, {1, 2}) == Approx(1.0 / 3));        // |3 − 2| / (1 + 2)
    CHECK(difference({1, nan}, {1, 2}) == inf);                  // std::max(worst, NaN) kept worst: this read 0
    CHECK(difference({1, 2}, {nan, 2}) == inf);
    CHECK(difference({inf, 2}, {1, 2}) == inf);
    CHECK(difference({-inf, 2}, {inf, 2}) == inf);
    CHECK(difference({nan, -inf, 5}, {nan, -inf, 5}) == 0);      // the same NaN and infinity on both sides agree
}

TEST_CASE("every docs/math reference names a file and a section heading that exist", "[unit][theorems]") {
    for (const TheoremCheck& check : run_theorems({})) {
        INFO(check.math_ref);
        const std::size_t hash = check.math_ref.find('#');
        REQUIRE(hash != std::string::npos);
        const std::string file = std::string(TF_SOURCE_DIR) + "/" + check.math_ref.substr(0, hash);
        REQUIRE(std::ifstream(file).good());
        CHECK(test::has_heading_anchor(file, check.math_ref.substr(hash + 1)));
    }
}

TEST_CASE("the simplex check fails for rows summing to 1.01, unnormalised scores, a negative weight and a NaN", "[property][theorems]") {
    const Qkv in = random_qkv(4, 5, 1);
    const Tensor A = attention_weights(in.Q, in.K, {});
    CHECK(check_rows_sum_to_one(A).holds);
    CHECK_FALSE(check_rows_sum_to_one(A * 1.01).holds);
    CHECK_FALSE(check_rows_sum_to_one(exp(matmul(in.Q, in.K, {.transpose_b = true}))).holds);
    Tensor negative = A.clone();  // the row still sums to 1
    negative.set({0, 0, 0, 0}, A.at({0, 0, 0, 0}) - 1), negative.set({0, 0, 0, 1}, A.at({0, 0, 0, 1}) + 1);
    CHECK_FALSE(check_rows_sum_to_one(negative).holds);
    Tensor poisoned = A.clone();   // a NaN weight: its row's sum is NaN, which std::max had skipped
    poisoned.set({0, 0, 0, 0}, std::numeric_limits<double>::quiet_NaN());
    CHECK_FALSE(check_rows_sum_to_one(poisoned).holds);
}

TEST_CASE("the hull check fails for shifted outputs, a NaN output, and unmasked outputs read against the causal hull", "[property][theorems]") {
    const Qkv in = random_qkv(4, 4, 2);
    const Tensor O = scaled_dot_product_attention(in.Q, in.K, in.V, {});
    CHECK(check_outputs_in_value_hull(in.V, O).holds);
    CHECK_FALSE(check_outputs_in_value_hull(in.V, O + 10.0).holds);
    // Query 0 of a causal layer sees key 0 alone: its hull is the single point v_0.
    CHECK_FALSE(check_outputs_in_value_hull(in.V, O, causal_mask(4, 4)).holds);
    Tensor poisoned = O.clone();   // a NaN output lies in no hull
    poisoned.set({0, 0, 0, 0}, std::numeric_limits<double>::quiet_NaN());
    CHECK_FALSE(check_outputs_in_value_hull(in.V, poisoned).holds);
}

TEST_CASE("permutation equivariance fails once positions are added, or under a causal mask", "[property][theorems]") {
    auto mha = random_attention({.d_model = 8, .heads = 2}, 3);
    const SinusoidalPositionalEncoding positions(16, 8, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    const std::vector<int64_t> order = {3, 0, 4, 1, 2};
    const Tensor x = random_x(5, 4);
    CHECK(check_permutation_equivariance([&](const Tensor& v) { return (*mha)(v, {}); }, x, order).holds);
    CHECK_FALSE(check_permutation_equivariance([&](const Tensor& v) { return (*mha)(positions(v), {}); }, x, order).holds);
    CHECK_FALSE(check_permutation_equivariance([&](const Tensor& v) { return (*mha)(v, {.causal = true}); }, x, order).holds);
}

TEST_CASE("causal independence fails without the causal mask", "[property][theorems]") {
    auto mha = random_attention({.d_model = 8, .heads = 2, .kv_heads = 1}, 5);
    const Tensor x = random_x(6, 6);
    for (const int64_t t : {0, 2, 4}) {
        INFO("t = " << t);
        CHECK(check_causal_independence([&](const Tensor& v) { return (*mha)(v, {.causal = true}); }, x, t).holds);
        CHECK_FALSE(check_causal_independence([&](const Tensor& v) { return (*mha)(v, {}); }, x, t).holds);
    }
}

TEST_CASE("the temperature check fails for weights that ignore τ", "[property][theorems]") {
    const Qkv in = random_qkv(4, 5, 7);
    CHECK(check_temperature_limits([&](double tau) { return attention_weights(in.Q, in.K, {}, tau); }).holds);
    const Tensor fixed = attention_weights(in.Q, in.K, {});
    CHECK_FALSE(check_temperature_limits([&](double) { return fixed; }).holds);
}

TEST_CASE("the √d_k variance check fails for entries of variance 4 and for k = q", "[property][theorems]") {
    Rng rng(8);
    const Tensor q = test::random_tensor({20000, 32}, rng), k = test::random_tensor({20000, 32}, rng);
    CHECK(check_dot_product_variance(q, k).holds);
    CHECK_FALSE(check_dot_product_variance(q * 2.0, k).holds);  // Var(q·k) = 4·d_k
    CHECK_FALSE(check_dot_product_variance(q, q).holds);        // q·q = Σ q_d²: mean d_k, variance 2·d_k
}

TEST_CASE("the rotation check fails for a learned position table", "[property][theorems]") {
    Rng rng(9);
    const SinusoidalPositionalEncoding sinusoidal(64, 8, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    const LearnedPositionalEncoding learned(64, 8, InitScheme{}, rng, DType::f64);
    CHECK(check_sinusoidal_rotation(sinusoidal.table()).holds);
    CHECK_FALSE(check_sinusoidal_rotation(learned.weight()).holds);
}

TEST_CASE("the parameter count is 4C² + 4C for MHA, and the check fails against another layer's count", "[property][theorems]") {
    const auto mha = test::make_attention({.d_model = 12, .heads = 3});
    const auto gqa = test::make_attention({.d_model = 12, .heads = 3, .kv_heads = 1});
    const auto unbiased = test::make_attention({.d_model = 12, .heads = 3, .bias = Bias::none});
    CHECK(mha->parameter_count() == 4 * 12 * 12 + 4 * 12);
    for (const auto& layer : {mha, gqa, unbiased}) CHECK(check_parameter_count(layer->options(), layer->parameter_count()).holds);
    CHECK_FALSE(check_parameter_count(gqa->options(), mha->parameter_count()).holds);
    CHECK_FALSE(check_parameter_count(mha->options(), unbiased->parameter_count()).holds);
}

TEST_CASE("GQA = MHA with repeated K/V heads, and the check fails once one weight of the MHA is perturbed", "[property][theorems]") {
    auto grouped = random_attention({.d_model = 8, .heads = 4, .kv_heads = 2}, 10);
    auto full = mha_repeating_kv_heads(*grouped);
    const Tensor x = random_x(5, 11);
    CHECK(check_gqa_equals_mha(*grouped, *full, x).holds);
    Tensor weight = full->state_dict().at("k_proj.weight");
    weight.set({3, 1}, weight.at({3, 1}) + 0.5);
    CHECK_FALSE(check_gqa_equals_mha(*grouped, *full, x).holds);
}

TEST_CASE("a window one key short of covering T positions is not full attention", "[property][theorems]") {
    auto full = random_attention({.d_model = 8, .heads = 2}, 12);
    const int64_t T = 5;
    const Tensor x = random_x(T, 13);
    for (const bool causal : {true, false}) {
        INFO("causal " << causal);
        CHECK(check_window_equals_full(*full, x, covering_window(T, causal), causal).holds);
        CHECK(check_window_equals_full(*full, x, covering_window(T, causal) + 3, causal).holds);
        CHECK_FALSE(check_window_equals_full(*full, x, covering_window(T, causal) - 1, causal).holds);
    }
}

TEST_CASE("the tiled check fails when the tiled side is causal and the composed side is not", "[property][theorems]") {
    const Qkv in = random_qkv(7, 7, 14, /*Dv=*/3);  // the tiled kernel takes V as wide as K
    const auto with = [](bool causal) {
        return [causal](const Tensor& Q, const Tensor& K, const Tensor& V) {
            return tiled_attention(Q, K, V, {.causal = causal, .query_tile = 3, .key_tile = 2});
        };
    };
    const AttentionFn composed = [](const Tensor& Q, const Tensor& K, const Tensor& V) { return composed_attention(Q, K, V); };
    CHECK(check_tiled_matches_composed(with(false), composed, in.Q, in.K, in.V).holds);
    CHECK_FALSE(check_tiled_matches_composed(with(true), composed, in.Q, in.K, in.V).holds);
}

TEST_CASE("the analytic-backward check fails for a masked attention or another temperature", "[property][theorems]") {
    const Qkv in = random_qkv(4, 4, 15);
    const double tau = std::sqrt(3.0);
    const auto attention = [](AttentionMask mask, double temperature) {
        return [mask, temperature](const Tensor& Q, const Tensor& K, const Tensor& V) {
            return scaled_dot_product_attention(Q, K, V, mask, temperature);
        };
    };
    CHECK(check_analytic_backward(attention({}, tau), in.Q, in.K, in.V, tau).holds);
    CHECK_FALSE(check_analytic_backward(attention({.causal = true}, tau), in.Q, in.K, in.V, tau).holds);
    CHECK_FALSE(check_analytic_backward(attention({}, 2 * tau), in.Q, in.K, in.V, tau).holds);
}

TEST_CASE("the PSD counterexample is genuine: xᵀ·W_qᵀ·W_k·x < 0 recomputed from the stored weights", "[property][theorems]") {
    auto layer = random_attention({.d_model = 8, .heads = 2}, 16);
    const QueryKeyForm form = most_negative_query_key_form(*layer);
    const int64_t C = 8, D = 4, h = form.head;
    const auto state = layer->state_dict();
    const Tensor W_q = state.at("q_proj.weight"), W_k = state.at("k_proj.weight");   // (C, C), rows = outputs
    double score = 0, norm = 0;  // (W_q,h·x)·(W_k,h·x): head h's query of x against its key of x
    for (int64_t r = 0; r < D; ++r) {
        double q = 0, k = 0;
        for (int64_t c = 0; c < C; ++c) q += W_q.at({h * D + r, c}) * form.x[c], k += W_k.at({h * D + r, c}) * form.x[c];
        score += q * k;
    }
    for (const double value : form.x) norm += value * value;
    CHECK(norm == Approx(1.0).epsilon(1e-12));
    CHECK(score < 0);
    CHECK(score == Approx(form.quadratic_form).epsilon(1e-10));
    CHECK(score == Approx(form.smallest_eigenvalue).epsilon(1e-10));
    CHECK_FALSE(check_query_key_psd(*layer).holds);
}

TEST_CASE("the PSD check holds when W_K = W_Q, where the claim is true", "[property][theorems]") {
    auto layer = random_attention({.d_model = 8, .heads = 2}, 17);
    auto state = layer->state_dict();
    state["k_proj.weight"] = state.at("q_proj.weight").clone();
    layer->load_state_dict(state);
    const Measured measured = check_query_key_psd(*layer);
    INFO(measured.numbers);
    CHECK(measured.holds);
}

TEST_CASE("Jacobi eigenpairs: a matrix with known eigenvalues, and A·v = λ·v for a random one", "[unit][theorems]") {
    const SymmetricEigen known = symmetric_eigen({2, 1, 0, 1, 2, 0, 0, 0, -1}, 3);
    test::require_values(Tensor::from_data(known.values, {3}, DType::f64), {-1, 1, 3});
    Rng rng(18);
    const int64_t n = 7;
    std::vector<double> A(n * n);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) A[i * n + j] = A[j * n + i] = rng.normal();
    const SymmetricEigen eigen = symmetric_eigen(A, n);
    for (std::size_t e = 0; e < eigen.values.size(); ++e)
        for (int64_t i = 0; i < n; ++i) {
            double Av = 0;
            for (int64_t j = 0; j < n; ++j) Av += A[i * n + j] * eigen.vectors[e][j];
            CHECK(Av == Approx(eigen.values[e] * eigen.vectors[e][i]).margin(1e-12));
        }
    CHECK(std::is_sorted(eigen.values.begin(), eigen.values.end()));
}

TEST_CASE("on a tiny trained run the weight statements are measured on its first attention too", "[integration][theorems]") {
    TempDir dir;
    const train::LoadedRun run = train::load_run(test::train_tiny_transformer_run(dir), "best");
    const std::vector<TheoremCheck> checks = run_theorems({.trained = run.model.get()});
    REQUIRE(checks.size() == 13);
    for (std::size_t i = 0; i < checks.size(); ++i) {
        INFO(i + 1 << ". " << checks[i].statement << " | " << checks[i].measured);
        CHECK(checks[i].as_expected());
        const bool about_weights = i != 5 && i != 6;  // the √d_k Monte Carlo and the position table are not
        CHECK((checks[i].measured.find("trained encoder.layers.0.self_attn: ") != std::string::npos) == about_weights);
    }
}

TEST_CASE("a model with no multi-head attention is said so on the weight statements' lines", "[unit][theorems]") {
    Rng rng(19);
    const Linear no_attention(4, 4, Bias::learned, InitScheme{}, rng);
    const std::vector<TheoremCheck> checks = run_theorems({.trained = &no_attention});
    for (const TheoremCheck& check : checks) CHECK(check.as_expected());
    CHECK_THAT(checks[0].measured, Contains("trained: not checked, the run has no multi_head_attention layer"));
    CHECK_THAT(checks[5].measured, !Contains("not checked"));
}

// Characters, not bytes: the statements hold Σ, τ and ᵀ.
std::size_t characters(const std::string& line) {
    std::size_t count = 0;
    for (const char byte : line) count += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
    return count;
}

TEST_CASE("every statement has a short form of at most 45 characters and a key number on each set of weights", "[integration][theorems]") {
    TempDir dir;
    const train::LoadedRun run = train::load_run(test::train_tiny_transformer_run(dir), "best");
    for (const uint64_t seed : {1, 2}) {
        const std::vector<TheoremCheck> checks = run_theorems({.seed = seed, .trained = run.model.get()});
        for (std::size_t i = 0; i < checks.size(); ++i) {
            const TheoremCheck& check = checks[i];
            INFO(check.statement << " | " << check.key_number << " | " << check.measured);
            CHECK(characters(check.short_statement) <= 45);
            CHECK(check.key_number.find('?') == std::string::npos);   // the pattern found its number in every measurement
            CHECK(std::any_of(check.key_number.begin(), check.key_number.end(), [](char c) { return std::isdigit(c); }));
            const bool about_weights = i != 5 && i != 6;   // the √d_k Monte Carlo and the position table: one number
            CHECK((check.key_number.find("(random), ") != std::string::npos) == about_weights);
            CHECK((check.key_number.find(" (trained)") != std::string::npos) == about_weights);
        }
    }
}

TEST_CASE("tapeformer theorems prints short lines, the PSD note once, and the details with --verbose", "[integration][theorems]") {
    const test::CliResult plain = test::run_cli({"theorems"});
    INFO(plain.out << plain.err);
    REQUIRE(plain.exit_code == 0);
    const std::vector<std::string> lines = lines_of(plain.out);
    REQUIRE(lines.size() == 2 + 13);
    CHECK_THAT(lines[0], Contains("13 statements of attention theory") && Contains("--verbose"));
    CHECK(lines[1] == "statement 13 (W_Q·W_Kᵀ is positive semi-definite) is false in general: it is expected to fail.");
    for (const std::string& line : lines) {
        CHECK(characters(line) < 120);
        CHECK_THAT(line, !Contains("expected: ") && !Contains("UNEXPECTED") && !Contains("docs/math/"));
    }
    CHECK(lines[2].starts_with(" 1. holds  attention weights ≥ 0, each row sums to 1"));
    CHECK_THAT(lines[2], Contains("max |Σα − 1| = "));
    CHECK(lines[14].starts_with("13. fails  W_Q·W_Kᵀ is positive semi-definite"));
    CHECK_THAT(lines[14], Contains("λ_min(½(M + Mᵀ)) = -"));   // a negative eigenvalue: the counterexample

    const test::CliResult verbose = test::run_cli({"theorems", "--verbose"});
    INFO(verbose.out << verbose.err);
    REQUIRE(verbose.exit_code == 0);
    const std::vector<std::string> details = lines_of(verbose.out);
    REQUIRE(details.size() == 2 + 13);
    for (std::size_t i = 2; i < details.size(); ++i) CHECK_THAT(details[i], Contains("(expected: ") && Contains("| docs/math/"));
    CHECK_THAT(details[2], Contains("attention weights are non-negative and each row sums to one | random: max |Σ_j α_ij − 1| = "));
    CHECK_THAT(details[14], Contains("13. fails (expected: fails)") && Contains("the claim is false in general: counterexample"));

    TempDir dir;
    const std::string run = test::train_tiny_transformer_run(dir);
    const test::CliResult trained = test::run_cli({"theorems", "--run", run, "--seed", "4"});
    INFO(trained.out << trained.err);
    REQUIRE(trained.exit_code == 0);
    for (const std::string& line : lines_of(trained.out)) CHECK(characters(line) < 120);
    CHECK_THAT(trained.out, Contains("the run's first attention layer") && Contains(" (trained)"));

    const test::CliResult json = test::run_cli({"theorems", "--run", run, "--json", "--seed", "4"});
    INFO(json.out << json.err);
    REQUIRE(json.exit_code == 0);
    REQUIRE(lines_of(json.out).size() == 13);
    for (const std::string& line : lines_of(json.out)) {
        const nlohmann::json check = nlohmann::json::parse(line);
        CHECK(check.at("as_expected") == true);
        CHECK(check.at("math_ref").get<std::string>().starts_with("docs/math/"));
        CHECK_FALSE(check.contains("key_number"));   // --json is for programs: its fields stay as they were
    }
    CHECK_THAT(json.out, Contains("trained encoder.layers.0.self_attn: "));
}

TEST_CASE("tapeformer theorems on a missing run or a broken checkpoint exits 2 naming it", "[integration][theorems]") {
    TempDir dir;
    const test::CliResult missing = test::run_cli({"theorems", "--run", dir / "nowhere"});
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Contains(dir / "nowhere") && Contains("not a run directory"));
    const train::RunDirectory run(test::train_tiny_transformer_run(dir));
    for (const std::string& checkpoint : {run.best(), run.latest()})
        if (file_exists(checkpoint)) test::write_text(checkpoint, "not a checkpoint");
    const test::CliResult broken = test::run_cli({"theorems", "--run", dir / "run"});
    INFO(broken.err);
    CHECK(broken.exit_code == 2);
    CHECK_THAT(broken.err, Contains(".safetensors"));
}
