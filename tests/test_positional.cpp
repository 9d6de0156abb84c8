// Positional encodings: the sinusoidal table by its formula and its relative-position rotation
// (Vaswani et al. 2017 §3.5), offsets, the √C input scale, and the learned table's parameter and gradient.
#include "catch.h"
#include <cmath>

#include "analysis/theorems/layer_theorems.h"
#include "autograd/ops.h"
#include "helpers.h"
#include "layers/positional.h"
#include "module_gradcheck.h"

using namespace tf;

TEST_CASE("sinusoidal table: PE(pos, 2i) = sin(pos/10000^{2i/C}), PE(pos, 2i+1) = cos(…)", "[unit]") {
    const SinusoidalPositionalEncoding encoding(50, 6, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    const Tensor& pe = encoding.table();
    REQUIRE(pe.shape() == Shape{50, 6});
    REQUIRE(encoding.named_parameters().empty());
    test::require_values(slice(pe, 0, 0, 1), {0, 1, 0, 1, 0, 1});  // position 0: sin 0, cos 0
    for (const int64_t pos : {1, 7, 49}) {
        for (int64_t i = 0; i < 3; ++i) {
            const double angle = static_cast<double>(pos) / std::pow(10000.0, 2.0 * static_cast<double>(i) / 6.0);
            REQUIRE(pe.at({pos, 2 * i}) == Approx(std::sin(angle)).margin(1e-13));
            REQUIRE(pe.at({pos, 2 * i + 1}) == Approx(std::cos(angle)).margin(1e-13));
        }
    }
}

TEST_CASE("sinusoidal forward adds the rows from offset, optionally scaling x by √C first", "[unit]") {
    using Scale = SinusoidalPositionalEncoding::InputScale;
    const SinusoidalPositionalEncoding plain(16, 4, Scale::none, DType::f64);
    const SinusoidalPositionalEncoding scaled(16, 4, Scale::sqrt_width, DType::f64);
    Rng rng(31);
    const Tensor x = Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64);
    const Tensor rows = slice(plain.table(), 0, 5, 8);  // positions 5, 6, 7
    REQUIRE(test::max_relative_difference(plain(x, 5), x + rows) == 0.0);
    REQUIRE(test::max_relative_difference(scaled(x, 5), x * 2.0 + rows) < 1e-15);  // √4 = 2
    REQUIRE_THROWS_WITH(plain(x, 14), Catch::Contains("max_len 16"));
}

// Vaswani et al. 2017 §3.5: PE(pos + k) = T_k·PE(pos), T_k block-diagonal with one 2×2 rotation per
// frequency ω_i; check_sinusoidal_rotation (also run by `tapeformer theorems`) compares every p and
// k = 1, 3, 10.
TEST_CASE("sinusoidal PE(pos + k) = T_k·PE(pos) with T_k independent of pos", "[property]") {
    const SinusoidalPositionalEncoding encoding(64, 8, SinusoidalPositionalEncoding::InputScale::none, DType::f64);
    const Measured rotation = check_sinusoidal_rotation(encoding.table());
    INFO(rotation.numbers);
    CHECK(rotation.holds);
}

TEST_CASE("learned positional encoding: a (max_len, C) weight, rows from offset, an error naming max_len", "[unit]") {
    Rng rng(32);
    LearnedPositionalEncoding encoding(10, 4, InitScheme{InitKind::normal, 0.02}, rng, DType::f64);
    REQUIRE(encoding.state_dict().at("weight").shape() == Shape{10, 4});
    const Tensor x = Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64);
    REQUIRE(test::max_relative_difference(encoding(x, 2), x + slice(encoding.weight(), 0, 2, 5)) == 0.0);
    Tape::current().backward(sum(encoding(x, 2)));
    const Tensor grad = encoding.weight().grad();  // (10, 4): B = 2 per used row, 0 elsewhere
    for (int64_t pos = 0; pos < 10; ++pos)
        for (int64_t c = 0; c < 4; ++c) REQUIRE(grad.at({pos, c}) == (pos >= 2 && pos < 5 ? 2.0 : 0.0));
    REQUIRE_THROWS_WITH(encoding(Tensor::zeros({1, 11, 4}, DType::f64)), Catch::Contains("max_len 10"));
}

TEST_CASE("positional encoding gradients (input, learned weight) match finite differences", "[gradcheck]") {
    Rng rng(33);
    const Tensor x = Tensor::uniform({2, 3, 4}, -1, 1, rng, DType::f64);
    LearnedPositionalEncoding learned(6, 4, InitScheme{InitKind::normal, 0.5}, rng, DType::f64);
    test::gradcheck_inputs_and_parameters(learned, {x}, [&](const std::vector<Tensor>& in) { return learned(in[0], 1); });
    const SinusoidalPositionalEncoding sinusoidal(6, 4, SinusoidalPositionalEncoding::InputScale::sqrt_width, DType::f64);
    const GradcheckResult result = gradcheck([&](const std::vector<Tensor>& in) { return sinusoidal(in[0], 2); }, {x});
    INFO(result.message);
    REQUIRE(result.ok);
}
