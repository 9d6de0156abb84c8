// The norm table (layers/norm_registry.h): the transformer blocks' and stacks' norms come from it by
// name. The default, layer_norm, reads as such from a config without the key (every run saved
// before the key existed) and is written into the resolved config; a norm a test registers in one
// line is built by every block and final norm of a transformer, which then trains.
#include "catch.h"

#include <cmath>

#include "autograd/ops.h"
#include "config/json_file.h"
#include "config/json_reader.h"
#include "layers/layer_norm.h"
#include "layers/norm_registry.h"
#include "layers/builtin_layers.h"
#include "models/build.h"
#include "run_helpers.h"
#include "split_batch_runs.h"
#include "train/trainer.h"

using namespace tf;

namespace {

// The test's own norm: y = γ ⊙ x / √(mean(x²) + ε), no centring and no bias (an RMS norm), so its
// parameters differ from layer norm's by name as well as by value.
class RootMeanSquareNorm : public Norm {
public:
    RootMeanSquareNorm(int64_t width, double eps, DType dtype) : eps_(eps) {
        gamma_ = register_parameter("weight", Tensor::ones({width}, dtype));
    }
    Tensor forward(const Tensor& x) const override {
        const Tensor mean_square = mean(x * x, {x.dim() - 1}, true);   // (…, 1)
        return x / sqrt(mean_square + eps_) * gamma_;
    }

private:
    Tensor gamma_;
    double eps_;
};

const NormType kRootMeanSquareNorm{[](int64_t width, double eps, DType dtype) {
    return std::make_shared<RootMeanSquareNorm>(width, eps, dtype);
}};

const config::Json kTinyTransformer = {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1},
                                   {"decoder_layers", 1}, {"ffn_hidden", 16}, {"max_length", 12}, {"dropout", 0.0}};

std::shared_ptr<SequenceModel> model_from(const config::Json& section) {
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = 11;
    build.seed = 3;
    return build_model(read_model_config(reader), build);
}

}  // namespace

TEST_CASE("the norm defaults to layer_norm: a config without the key builds what one naming it does", "[unit]") {
    config::Json resolved;
    config::JsonReader reader(kTinyTransformer, "model", &resolved);
    CHECK(read_model_config(reader).transformer.norm == "layer_norm");
    CHECK(resolved.at("norm") == "layer_norm");   // written out, as every default is

    config::Json named = kTinyTransformer;
    named["norm"] = "layer_norm";
    const auto without_key = model_from(kTinyTransformer), with_key = model_from(named);
    const auto ours = without_key->state_dict(), theirs = with_key->state_dict();
    REQUIRE(ours.size() == theirs.size());
    for (const auto& [name, tensor] : ours) {
        INFO(name);
        CHECK(tensor.to_vector() == theirs.at(name).to_vector());
    }
    for (const char* name : {"encoder.layers.0.norm1.weight", "encoder.layers.0.norm1.bias", "decoder.layers.0.norm3.bias",
                             "decoder.norm.weight"})
        CHECK(ours.count(name) == 1);
}

TEST_CASE("a norm the table lacks is a ConfigError naming its path and the table's norms", "[unit]") {
    config::Json section = kTinyTransformer;
    section["norm"] = "layer_nrom";
    config::JsonReader reader(section, "model");
    REQUIRE_THROWS_AS(read_model_config(reader), ConfigError);
    config::JsonReader again(section, "model");
    std::string norms;
    for (const std::string& norm : norm_names()) norms += (norms.empty() ? "\"" : ", \"") + norm + "\"";
    REQUIRE_THROWS_WITH(read_model_config(again), "model.norm: expected one of " + norms +
                                                      ", got \"layer_nrom\" (did you mean \"layer_norm\"?)");
}

TEST_CASE("a norm registered in one line is every norm of a transformer, and the model trains with it", "[integration]") {
    const ScopedTableEntry<NormType> registered(norm_table(), "rms_test", kRootMeanSquareNorm);
    config::Json section = kTinyTransformer;
    section["norm"] = "rms_test";
    const auto model = model_from(section);
    const auto parameters = model->state_dict();
    // Its weight, and no layer-norm bias, at every block norm and the final norms.
    for (const char* name : {"encoder.layers.0.norm1.weight", "encoder.layers.0.norm2.weight", "decoder.layers.0.norm3.weight",
                             "encoder.norm.weight", "decoder.norm.weight"})
        CHECK(parameters.count(name) == 1);
    for (const char* name : {"encoder.layers.0.norm1.bias", "decoder.layers.0.norm3.bias", "decoder.norm.bias"})
        CHECK(parameters.count(name) == 0);

    // A registry block takes the same key.
    Rng rng(1);
    const auto block = builtin_layers().create({{"type", "transformer_encoder_block"}, {"heads", 2}, {"norm", "rms_test"}},
                                               "model.block", {.width = 8, .init_rng = &rng});
    CHECK(block->state_dict().count("norm1.bias") == 0);
    CHECK(block->state_dict().count("norm1.weight") == 1);

    test::TempDir dir("tapeformer-norm");
    train::train(test::pieces_run(section, 12), {.run_dir = dir.path(), .quiet = true});
    const auto losses = test::logged_losses(dir / "metrics.jsonl");
    REQUIRE(losses.size() == 12);
    for (const auto& [step, loss] : losses) CHECK(std::isfinite(loss));
    CHECK(losses.back().second < losses.front().second);
    CHECK(config::load_json_file(dir / "config.resolved.json").at("model").at("norm") == "rms_test");
}

TEST_CASE("layer_norm's post-LN residual is the fused sum and norm, and a norm without a fused kernel normalises the sum", "[unit]") {
    Rng rng(5);
    const Tensor x = Tensor::normal({2, 3, 4}, 0.0, 1.0, rng, DType::f64), r = Tensor::normal({2, 3, 4}, 0.0, 1.0, rng, DType::f64);
    const LayerNorm layer_norm(4, 1e-5, DType::f64);
    const std::vector<double> fused = layer_norm.of_sum(x, r).to_vector(), unfused = layer_norm(x + r).to_vector();
    const RootMeanSquareNorm rms(4, 1e-5, DType::f64);
    const std::vector<double> rms_sum = rms.of_sum(x, r).to_vector(), rms_of_sum = rms(x + r).to_vector();
    REQUIRE(fused.size() == unfused.size());
    for (std::size_t i = 0; i < fused.size(); ++i) {
        CHECK(fused[i] == Approx(unfused[i]).margin(1e-12));
        CHECK(rms_sum[i] == rms_of_sum[i]);
    }
}
