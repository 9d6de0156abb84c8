// Optimizers against updates worked out by hand on a 2-element f64 parameter, state save/load,
// and the PyTorch details that are easy to get wrong (per-parameter Adam steps, decoupled decay).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "analysis/theorems/measured.h"
#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "helpers.h"
#include "train/optimizer.h"

using namespace tf;
using namespace tf::train;
using tf::test::f64;
using tf::test::require_values;

namespace {
Tensor parameter(const std::vector<double>& values, DType dtype = DType::f64) {
    Tensor p = Tensor::from_data(values, {static_cast<int64_t>(values.size())}, dtype);
    p.set_requires_grad(true);
    return p;
}

// One step with a given gradient (set directly, as a backward pass would leave it).
void step_with(Optimizer& optimizer, Tensor& p, const std::vector<double>& grad, double lr) {
    p.set_grad(Tensor::from_data(grad, p.shape(), p.dtype()));
    optimizer.step(lr);
}

bool bit_equal(const Tensor& a, const Tensor& b) {
    return a.shape() == b.shape() && a.dtype() == b.dtype() && std::memcmp(a.raw_data(), b.raw_data(), a.bytes()) == 0;
}
}  // namespace

TEST_CASE("sgd with coupled weight decay matches two steps by hand", "[unit]") {
    // lr 0.1, λ 0.1, p₀ = [1, −2], g = [0.5, −1] both steps; g' = g + λ·p, p ← p − lr·g'.
    // step 1: g' = [0.6, −1.2]      p₁ = [0.94, −1.88]
    // step 2: g' = [0.594, −1.188]  p₂ = [0.8806, −1.7612]
    Tensor p = parameter({1, -2});
    Sgd sgd({{"p", p}}, {.weight_decay = 0.1});
    step_with(sgd, p, {0.5, -1}, 0.1);
    require_values(p, {0.94, -1.88});
    step_with(sgd, p, {0.5, -1}, 0.1);
    require_values(p, {0.8806, -1.7612});
    REQUIRE(sgd.step_count() == 2);
}

TEST_CASE("sgd momentum matches three steps by hand", "[unit]") {
    // μ 0.9, lr 0.1, p₀ = [1, −2]; g₁ = [1, 2], g₂ = [0.5, −1], g₃ = [0, 1]; b ← μ·b + g, p ← p − lr·b.
    // b₁ = [1, 2]        p₁ = [0.9, −2.2]
    // b₂ = [1.4, 0.8]    p₂ = [0.76, −2.28]
    // b₃ = [1.26, 1.72]  p₃ = [0.634, −2.452]
    Tensor p = parameter({1, -2});
    Sgd sgd({{"p", p}}, {.momentum = 0.9});
    step_with(sgd, p, {1, 2}, 0.1);
    require_values(p, {0.9, -2.2});
    step_with(sgd, p, {0.5, -1}, 0.1);
    require_values(p, {0.76, -2.28});
    step_with(sgd, p, {0, 1}, 0.1);
    require_values(p, {0.634, -2.452});
    require_values(sgd.state().at("optimizer.momentum_buffer.p"), {1.26, 1.72});
}

TEST_CASE("sgd nesterov matches three steps by hand", "[unit]") {
    // Same run with Nesterov: b as above, then g ← g + μ·b, p ← p − lr·g.
    // step 1: g = [1.9, 3.8]      p₁ = [0.81, −2.38]
    // step 2: g = [1.76, −0.28]   p₂ = [0.634, −2.352]
    // step 3: g = [1.134, 2.548]  p₃ = [0.5206, −2.6068]
    Tensor p = parameter({1, -2});
    Sgd sgd({{"p", p}}, {.momentum = 0.9, .nesterov = true});
    step_with(sgd, p, {1, 2}, 0.1);
    require_values(p, {0.81, -2.38});
    step_with(sgd, p, {0.5, -1}, 0.1);
    require_values(p, {0.634, -2.352});
    step_with(sgd, p, {0, 1}, 0.1);
    require_values(p, {0.5206, -2.6068});
}

TEST_CASE("adam matches two bias-corrected steps by hand", "[unit]") {
    // β1 0.9, β2 0.999, ε 1e-8, lr 0.1, p₀ = [1, −2]; g₁ = [1, 2], g₂ = [0.5, −1].
    // step 1: m = 0.1·g₁ = [0.1, 0.2], v = 0.001·g₁² = [0.001, 0.004]
    //         m̂ = m/(1−0.9) = [1, 2], v̂ = v/(1−0.999) = [1, 4]
    //         p₁ = p₀ − 0.1·m̂/(√v̂ + ε) = [1 − 0.1/(1+ε), −2 − 0.2/(2+ε)]
    // step 2: m = 0.9·m + 0.1·g₂ = [0.14, 0.08], v = 0.999·v + 0.001·g₂² = [0.001249, 0.004996]
    //         m̂ = m/(1−0.81) = m/0.19, v̂ = v/(1−0.998001) = v/0.001999
    //         p₂ = p₁ − 0.1·m̂/(√v̂ + ε)
    const double eps = 1e-8;
    Tensor p = parameter({1, -2});
    Adam adam({{"p", p}}, {.beta1 = 0.9, .beta2 = 0.999, .eps = eps});
    step_with(adam, p, {1, 2}, 0.1);
    const std::vector<double> p1 = {1 - 0.1 * 1 / (1 + eps), -2 - 0.1 * 2 / (2 + eps)};
    require_values(p, p1);
    step_with(adam, p, {0.5, -1}, 0.1);
    const double m_hat[2] = {0.14 / 0.19, 0.08 / 0.19}, v_hat[2] = {0.001249 / 0.001999, 0.004996 / 0.001999};
    require_values(p, {p1[0] - 0.1 * m_hat[0] / (std::sqrt(v_hat[0]) + eps),
                       p1[1] - 0.1 * m_hat[1] / (std::sqrt(v_hat[1]) + eps)});
    require_values(adam.state().at("optimizer.exp_avg.p"), {0.14, 0.08});
    require_values(adam.state().at("optimizer.exp_avg_sq.p"), {0.001249, 0.004996});
    REQUIRE(adam.state().at("optimizer.step.p").item() == 2);
}

TEST_CASE("adam adds weight decay to the gradient, adamw decays the parameter", "[unit]") {
    // lr 0.1, λ 0.1, p₀ = [1, −2], g = [1, 2]. On a first step m̂/√v̂ = sign(g'), so:
    // Adam (L2):  g' = g + λ·p = [1.1, 1.8]; p₁ = p₀ − 0.1·g'/(|g'| + ε)  ≈ [0.9, −2.1]: the decay vanished
    // AdamW:      p ← p·(1 − 0.1·0.1) = [0.99, −1.98]; p₁ = that − 0.1·g/(|g| + ε) ≈ [0.89, −2.08]
    const double eps = 1e-8;
    Tensor p_adam = parameter({1, -2}), p_adamw = parameter({1, -2});
    Adam adam({{"p", p_adam}}, {.weight_decay = 0.1});
    AdamW adamw({{"p", p_adamw}}, {.weight_decay = 0.1});
    step_with(adam, p_adam, {1, 2}, 0.1);
    step_with(adamw, p_adamw, {1, 2}, 0.1);
    require_values(p_adam, {1 - 0.1 * 1.1 / (1.1 + eps), -2 - 0.1 * 1.8 / (1.8 + eps)});
    require_values(p_adamw, {0.99 - 0.1 * 1 / (1 + eps), -1.98 - 0.1 * 2 / (2 + eps)});
}

TEST_CASE("adamw's second step decays then takes the adam step", "[unit]") {
    // λ 0.1, lr 0.1: p ← p·0.99 before each Adam step; m, v, m̂, v̂ as in the Adam test (no L2).
    const double eps = 1e-8;
    Tensor p = parameter({1, -2});
    AdamW adamw({{"p", p}}, {.weight_decay = 0.1});
    step_with(adamw, p, {1, 2}, 0.1);
    step_with(adamw, p, {0.5, -1}, 0.1);
    const double p1[2] = {0.99 - 0.1 / (1 + eps), -1.98 - 0.2 / (2 + eps)};
    const double m_hat[2] = {0.14 / 0.19, 0.08 / 0.19}, v_hat[2] = {0.001249 / 0.001999, 0.004996 / 0.001999};
    require_values(p, {p1[0] * 0.99 - 0.1 * m_hat[0] / (std::sqrt(v_hat[0]) + eps),
                       p1[1] * 0.99 - 0.1 * m_hat[1] / (std::sqrt(v_hat[1]) + eps)});
}

TEST_CASE("adamw without weight decay is adam, bit for bit", "[unit]") {
    Rng rng(3);
    const Tensor start = Tensor::normal({300000}, 0, 1, rng);  // above the threading threshold
    Tensor a = start.clone(), b = start.clone();
    a.set_requires_grad(true);
    b.set_requires_grad(true);
    Adam adam({{"w", a}}, {.weight_decay = 0});
    AdamW adamw({{"w", b}}, {.weight_decay = 0});
    for (int i = 0; i < 3; ++i) {
        const Tensor grad = Tensor::normal({300000}, 0, 1, rng);
        a.set_grad(grad);
        b.set_grad(grad);
        adam.step(0.01);
        adamw.step(0.01);
    }
    REQUIRE(bit_equal(a, b));
    REQUIRE_FALSE(bit_equal(a, start));
}

TEST_CASE("adam counts steps per parameter, as pytorch does", "[unit]") {
    // b has no gradient on step 1, so step 2 is its first: m̂ = g, v̂ = g², a step of lr·g/(|g| + ε).
    Tensor a = parameter({1, 1}), b = parameter({3, -3});
    Adam adam({{"a", a}, {"b", b}}, {});
    step_with(adam, a, {1, 1}, 0.1);
    require_values(b, {3, -3});  // no gradient: untouched
    a.set_grad(Tensor::from_data({1, 1}, {2}, DType::f64));
    step_with(adam, b, {2, -4}, 0.1);
    require_values(b, {3 - 0.1 * 2 / (2 + 1e-8), -3 + 0.1 * 4 / (4 + 1e-8)});
    REQUIRE(adam.state().at("optimizer.step.a").item() == 2);
    REQUIRE(adam.state().at("optimizer.step.b").item() == 1);
    REQUIRE(adam.step_count() == 2);
}

TEST_CASE("optimizers update f32 parameters like f64 ones", "[unit]") {
    Tensor p32 = parameter({1, -2}, DType::f32), p64 = parameter({1, -2});
    AdamW adam32({{"p", p32}}, {.weight_decay = 0.1});
    AdamW adam64({{"p", p64}}, {.weight_decay = 0.1});
    for (const auto& grad : std::vector<std::vector<double>>{{1, 2}, {0.5, -1}, {-0.25, 3}}) {
        step_with(adam32, p32, grad, 0.1);
        step_with(adam64, p64, grad, 0.1);
    }
    REQUIRE(p32.dtype() == DType::f32);
    require_values(p32, p64.to_vector(), 1e-6);
}

TEST_CASE("adamw on a large f32 parameter matches the formula element by element", "[unit]") {
    // 300,001 elements: threaded, in blocks of 4,096 with a short last one and vector tails. Each
    // element against AdamW's two steps worked in double (the formula of "adamw's second step").
    const int64_t n = 300001;
    const double lr = 0.01, lambda = 0.1, eps = 1e-8;
    Rng rng(5);
    const Tensor start = Tensor::normal({n}, 0, 1, rng), g1 = Tensor::normal({n}, 0, 1, rng), g2 = Tensor::normal({n}, 0, 1, rng);
    Tensor p = start.clone();
    p.set_requires_grad(true);
    AdamW adamw({{"w", p}}, {.weight_decay = lambda});
    for (const Tensor& grad : {g1, g2}) {
        p.set_grad(grad);
        adamw.step(lr);
    }
    const std::vector<double> p0 = start.to_vector(), a = g1.to_vector(), b = g2.to_vector(), got = p.to_vector();
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double m1 = 0.1 * a[i], v1 = 0.001 * a[i] * a[i];
        const double p1 = p0[i] * (1 - lr * lambda) - lr * (m1 / 0.1) / (std::sqrt(v1 / 0.001) + eps);
        const double m2 = 0.9 * m1 + 0.1 * b[i], v2 = 0.999 * v1 + 0.001 * b[i] * b[i];
        const double p2 = p1 * (1 - lr * lambda) - lr * (m2 / 0.19) / (std::sqrt(v2 / 0.001999) + eps);
        worst = tf::worse_of(worst, std::abs(got[i] - p2) / (1 + std::abs(p2)));
    }
    REQUIRE(worst < 1e-6);   // f32 rounding of a few operations, nothing more
}

TEST_CASE("adam's one pass over every parameter's blocks equals one update per parameter, bit for bit", "[unit]") {
    // Parameters of odd sizes (a block of 4,096 split across two of them, a lone element, one of
    // each dtype), one without a gradient on the first step, so the steps t differ: the fused list
    // against the readable per-parameter loop (ReferenceKernels), three AdamW steps each.
    const std::vector<std::pair<int64_t, DType>> sizes{{300001, DType::f32}, {1, DType::f32}, {4097, DType::f64}, {300, DType::f32}};
    Rng rng(11);
    NamedParameters fused_parameters, reference_parameters;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const Tensor start = Tensor::normal({sizes[i].first}, 0, 1, rng, sizes[i].second);
        const std::string name = std::string("p").append(std::to_string(i));   // not "p" + …: g++ 12 warns -Wrestrict there, wrongly
        fused_parameters.emplace_back(name, start.clone().set_requires_grad());
        reference_parameters.emplace_back(name, start.clone().set_requires_grad());
    }
    AdamW fused(fused_parameters, {.weight_decay = 0.1}), reference(reference_parameters, {.weight_decay = 0.1});
    for (int step = 0; step < 3; ++step) {
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const Tensor grad = Tensor::normal({sizes[i].first}, 0, 1, rng, sizes[i].second);
            const bool skipped = step == 0 && i == 1;   // p1's first step is the second
            fused_parameters[i].second.set_grad(skipped ? Tensor() : grad);
            reference_parameters[i].second.set_grad(skipped ? Tensor() : grad.clone());
        }
        fused.step(0.01);
        const kernels::ReferenceKernels one_update_per_parameter;
        reference.step(0.01);
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        INFO(fused_parameters[i].first);
        CHECK(bit_equal(fused_parameters[i].second, reference_parameters[i].second));
    }
    CHECK(fused.state().at("optimizer.step.p1").item() == 2);
}

TEST_CASE("optimizer state saved and loaded continues bit for bit", "[unit]") {
    Rng rng(7);
    const Tensor start = Tensor::normal({5, 3}, 0, 1, rng);
    std::vector<Tensor> grads;
    for (int i = 0; i < 5; ++i) grads.push_back(Tensor::normal({5, 3}, 0, 1, rng));
    Tensor original = start.clone().set_requires_grad(true);
    AdamW first({{"w", original}}, {.weight_decay = 0.01});
    for (int i = 0; i < 3; ++i) {
        original.set_grad(grads[i]);
        first.step(0.01);
    }
    // A fresh optimizer on a copy of the parameter, given the saved state (cloned: a snapshot).
    std::map<std::string, Tensor> saved;
    for (const auto& [key, tensor] : first.state()) saved.emplace(key, tensor.clone());
    Tensor resumed = original.clone().set_requires_grad(true);
    AdamW second({{"w", resumed}}, {.weight_decay = 0.01});
    second.load_state(saved);
    REQUIRE(second.step_count() == 3);
    for (int i = 3; i < 5; ++i) {
        original.set_grad(grads[i]);
        resumed.set_grad(grads[i]);
        first.step(0.01);
        second.step(0.01);
    }
    REQUIRE(bit_equal(original, resumed));
    for (const auto& [key, tensor] : first.state()) REQUIRE(bit_equal(tensor, second.state().at(key)));
}

TEST_CASE("optimizer load_state rejects state that is not its own", "[unit]") {
    Tensor w = parameter({1, 2});
    Adam adam({{"w", w}}, {});
    Sgd sgd({{"w", w}}, {.momentum = 0.9});
    REQUIRE_THROWS_WITH(adam.load_state(sgd.state()), Catch::Contains("unknown key 'optimizer.momentum_buffer.w'"));
    auto state = adam.state();
    state.erase("optimizer.exp_avg.w");
    REQUIRE_THROWS_WITH(adam.load_state(state), Catch::Contains("missing key 'optimizer.exp_avg.w'"));
    state = adam.state();
    state["optimizer.exp_avg_sq.w"] = Tensor::zeros({3}, DType::f64);
    REQUIRE_THROWS_WITH(adam.load_state(state), Catch::Contains("'optimizer.exp_avg_sq.w' is (3) f64, expected (2) f64"));
}

TEST_CASE("a tied weight listed twice is updated once", "[unit]") {
    Tensor w = parameter({1, -2});
    Sgd sgd({{"encoder.embedding", w}, {"decoder.output", w}}, {});
    REQUIRE(sgd.parameters().size() == 1);
    step_with(sgd, w, {1, 1}, 0.5);
    require_values(w, {0.5, -2.5});
    REQUIRE_THROWS_AS(Sgd({{"a", w}, {"b", w.view({2, 1})}}, {}), ValueError);
}

TEST_CASE("optimizer zero_grad drops gradients and step skips parameters without one", "[unit]") {
    Tensor p = parameter({1, -2});
    Sgd sgd({{"p", p}}, {.momentum = 0.9});
    step_with(sgd, p, {1, 1}, 0.1);
    sgd.zero_grad();
    REQUIRE_FALSE(p.grad().defined());
    sgd.step(0.1);
    require_values(p, {0.9, -2.1});
    REQUIRE_THROWS_WITH(Sgd({{"p", p}}, {.nesterov = true}), Catch::Contains("nesterov needs momentum > 0"));
    REQUIRE_THROWS_WITH(Adam({{"p", p}}, {.beta2 = 1}), Catch::Contains("beta2 must be in [0, 1)"));
    REQUIRE_THROWS_WITH(sgd.step(std::nan("")), Catch::Contains("learning rate must be finite and ≥ 0"));
}
