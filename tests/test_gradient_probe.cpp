// Gradient probes on hand-built models whose Jacobians are known in closed form.
#include "catch.h"
#include <cmath>

#include "analysis/studies/gradient_probe.h"
#include "autograd/ops.h"
#include "models/transformer_models.h"

using namespace tf;

namespace {

// A scalar linear RNN over target positions: x_t = e[id_t], h_t = a·h_{t−1} + x_t, logit_t = h_t.
// So ∂logit_i/∂x_j = a^(i−j) for j ≤ i and 0 for j > i: a causal model with a known kernel.
// With two classes the logits are (h_t, 0).
class LinearRnnModel : public SequenceModel {
public:
    explicit LinearRnnModel(double a, int64_t classes = 1) : SequenceModel(nullptr), a_(a), classes_(classes) {
        Rng rng(1);
        table_ = register_parameter("table", Tensor::uniform({4, 1}, -1, 1, rng, DType::f64));
    }
    Tensor forward(const ModelInput& input) override {
        const Tensor x = probe(embedding(table_, input.tgt_in), input.observer);  // (B, T, 1)
        const int64_t T = x.size(1);
        std::vector<Tensor> outputs;
        Tensor h = slice(x, 1, 0, 1);
        outputs.push_back(h);
        for (int64_t t = 1; t < T; ++t) {
            h = h * a_ + slice(x, 1, t, t + 1);  // h_t = a·h_{t−1} + x_t
            outputs.push_back(h);
        }
        const Tensor h_all = concat(outputs, 1);  // (B, T, 1)
        return classes_ == 1 ? h_all : concat({h_all, h_all * 0.0}, 2);
    }
    DecodeState begin_decode(const ModelInput&, DecodeCache) override { return {}; }
    Tensor decode_step(DecodeState&, const IndexTensor&) override { return {}; }
    int64_t vocab_size() const override { return classes_; }

private:
    double a_;
    int64_t classes_;
    Tensor table_;
};

ModelInput example_of_length(int64_t T) {
    ModelInput input;
    std::vector<int64_t> ids;
    for (int64_t t = 0; t < T; ++t) ids.push_back(t % 4);
    input.tgt_in = IndexTensor(ids, {1, T});
    return input;
}

}  // namespace

TEST_CASE("the dependency kernel of a linear RNN is a^(i−j) below the diagonal, exactly 0 above", "[unit]") {
    LinearRnnModel model(0.5);
    Rng rng(2);
    const Matrix kernel = dependency_kernel(model, example_of_length(6), /*probes=*/0, rng);
    REQUIRE(kernel.size() == 6);
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j) {
            INFO("i = " << i << ", j = " << j);
            if (j > i) CHECK(kernel[i][j] == 0.0);
            else CHECK(kernel[i][j] == Approx(std::pow(0.5, i - j)).epsilon(1e-12));
        }
    const auto field = effective_receptive_field(kernel, 0.1);  // a^d > 0.1 for d ≤ 3
    CHECK(field == std::vector<int64_t>{1, 2, 3, 4, 4, 4});
}

TEST_CASE("the random-projection estimate keeps the causal zeros exact", "[unit]") {
    LinearRnnModel model(0.9);
    Rng rng(3);
    const Matrix kernel = dependency_kernel(model, example_of_length(5), /*probes=*/4, rng);
    for (int64_t i = 0; i < 5; ++i)
        for (int64_t j = i + 1; j < 5; ++j) CHECK(kernel[i][j] == 0.0);
    CHECK(kernel[4][0] > 0.0);
}

TEST_CASE("loss gradient norms match the analytic ∂L_i/∂x_j", "[unit]") {
    // Logits (h_i, 0) and target class 0: ∂L_i/∂h_i = σ(h_i) − 1, so ∂L_i/∂x_j = (σ(h_i) − 1)·a^(i−j).
    LinearRnnModel model(0.5, 2);
    const ModelInput example = example_of_length(4);
    const Tensor logits = model.forward(example);
    const Matrix norms = loss_gradient_norms(model, example, IndexTensor({0, 0, 0, 0}, {1, 4}), /*pad=*/-1);
    for (int64_t i = 0; i < 4; ++i) {
        const double h = logits.at({0, i, 0});
        const double dL_dh = 1.0 / (1.0 + std::exp(-h)) - 1.0;
        for (int64_t j = 0; j < 4; ++j) {
            INFO("i = " << i << ", j = " << j);
            CHECK(norms[i][j] == Approx(j > i ? 0.0 : std::abs(dL_dh) * std::pow(0.5, i - j)).margin(1e-12));
        }
    }
}

TEST_CASE("mean_by_distance averages each band d = offset + i − j", "[unit]") {
    const Matrix m = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
    const auto lm = mean_by_distance(m, 0);  // i − j: the lower triangle
    REQUIRE(lm.size() == 3);
    CHECK(lm[0] == Approx(5.0));  // (1 + 5 + 9) / 3
    CHECK(lm[1] == Approx(6.0));  // (4 + 8) / 2
    CHECK(lm[2] == Approx(7.0));
    const auto seq2seq = mean_by_distance(m, 3);  // S = 3 source positions: d = 3 + i − j ∈ [1, 5]
    REQUIRE(seq2seq.size() == 6);
    CHECK(std::isnan(seq2seq[0]));
    CHECK(seq2seq[1] == Approx(3.0));             // i = 0, j = 2
    CHECK(seq2seq[3] == Approx(5.0));             // the diagonal
    CHECK(seq2seq[5] == Approx(7.0));             // i = 2, j = 0
}

TEST_CASE("the dependency kernel of a causal transformer LM is exactly zero above the diagonal", "[unit]") {
    TransformerOptions options;
    options.d_model = 8;
    options.heads = 2;
    options.layers = 2;
    options.ffn_hidden = 16;
    options.dropout = 0.0;
    options.norm_first = true;
    ModelBuildContext build;
    build.vocab_size = 7;
    build.max_length = 16;
    build.seed = 3;
    DecoderLM model(options, build);
    model.eval();
    Rng rng(5);
    const Matrix kernel = dependency_kernel(model, example_of_length(6), /*probes=*/3, rng);
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 6; ++j) {
            INFO("i = " << i << ", j = " << j);
            if (j > i) CHECK(kernel[i][j] == 0.0);
            else CHECK(kernel[i][j] > 0.0);
        }
}
