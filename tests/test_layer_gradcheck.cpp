// `tapeformer gradcheck --layer TYPE`: every registered layer passes over its inputs and every
// parameter; a hand-written backward that is wrong, or a parameter the output ignores, fails; an
// unknown type, a missing required key or a missing memory exits 2 and says which.
#include "catch.h"

#include <sstream>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/layer_gradcheck.h"
#include "run_helpers.h"
#include "layers/builtin_layers.h"

using namespace tf;

namespace {

// The keys a registered layer needs beyond {"type"} at width 4, and whether it reads an encoder
// memory. A layer not listed here is checked with no keys and no memory.
struct LayerUnderCheck {
    config::Json keys = config::Json::object();
    bool memory = false;
};
const std::map<std::string, LayerUnderCheck> kNeeds{
    {"multi_head_attention", {{{"heads", 2}}, false}},
    {"transformer_encoder_block", {{{"heads", 2}}, false}},
    {"transformer_decoder_block", {{{"heads", 2}}, true}},
};

// y = x ⊙ w, recorded with a hand-written backward that gets dw twice too large; `unused` never
// reaches the output.
class WrongBackwardScale : public SequenceLayer {
public:
    explicit WrongBackwardScale(int64_t width) {
        weight_ = register_parameter("weight", Tensor::full({width}, 1.5, DType::f64));
        unused_ = register_parameter("unused", Tensor::zeros({width}, DType::f64));
    }
    Tensor forward(const Tensor& x, const SequenceContext&) override {
        Tensor y;
        {
            NoGradGuard no_grad;
            y = x * weight_;
        }
        return record("wrong_scale", {x, weight_}, y, [x, w = weight_.detach()](const Tensor& dy) -> Grads {
            NoGradGuard no_grad;
            return {dy * w, dy * x * 2.0};  // dx = dy ⊙ w is right; dw should be Σ dy ⊙ x
        });
    }

private:
    Tensor weight_, unused_;
};

LayerRegistry registry_with_wrong_layer() {
    LayerRegistry registry;
    registry.add("wrong_backward", [](config::JsonReader&, const LayerBuildContext& build) -> std::shared_ptr<SequenceLayer> {
        return std::make_shared<WrongBackwardScale>(build.width);
    });
    return registry;
}

}  // namespace

TEST_CASE("gradcheck --layer: every registered layer matches central differences over inputs and parameters", "[gradcheck]") {
    for (const std::string& type : builtin_layers().types())
        for (const bool causal : {false, true}) {
            LayerGradcheckOptions options{.type = type, .causal = causal};
            if (kNeeds.count(type)) options.keys = kNeeds.at(type).keys, options.memory = kNeeds.at(type).memory;
            const LayerGradcheckReport report = gradcheck_layer(builtin_layers(), options);
            INFO(type << (causal ? " (causal)" : ""));
            CHECK(report.tensors.size() > 2);  // x and the parameters
            for (const auto& tensor : report.tensors) {
                INFO(tensor.name << ": " << tensor.result.message);
                CHECK(tensor.reached);
                CHECK(tensor.result.checked > 0);
                CHECK(tensor.result.ok);
            }
            CHECK(report.ok());
        }
}

TEST_CASE("gradcheck --layer: every kernel of multi_head_attention, self and cross, grouped heads", "[gradcheck]") {
    for (const std::string kernel : {"softmax", "tiled", "linear"})
        for (const bool cross : {false, true}) {
            config::Json keys = {{"heads", 2}, {"kv_heads", 1}, {"kernel", kernel}};
            if (kernel == "tiled") keys["query_tile"] = 2, keys["key_tile"] = 3;
            const LayerGradcheckOptions options{.type = "multi_head_attention", .keys = keys, .causal = !cross, .memory = cross};
            const LayerGradcheckReport report = gradcheck_layer(builtin_layers(), options);
            INFO(kernel << (cross ? " cross" : " causal self"));
            for (const auto& tensor : report.tensors) {
                INFO(tensor.name << ": " << tensor.result.message);
                CHECK(tensor.ok());
            }
            CHECK(report.tensors.size() == (cross ? 10u : 9u));  // x, (memory,) 4 weights, 4 biases
        }
}

TEST_CASE("gradcheck --layer: cross-attention checks the memory as an input", "[gradcheck]") {
    const LayerGradcheckOptions options{.type = "multi_head_attention", .keys = {{"heads", 2}}, .memory = true};
    const LayerGradcheckReport report = gradcheck_layer(builtin_layers(), options);
    REQUIRE(report.tensors.size() > 2);
    CHECK(report.tensors[1].name == "memory");
    CHECK(report.tensors[1].shape == Shape{2, 4, 4});
    CHECK(report.tensors[1].result.checked == 32);
    CHECK(report.ok());
}

TEST_CASE("gradcheck --layer: a wrong hand-written backward and an ignored parameter fail, each on its own line", "[unit]") {
    std::ostringstream out;
    const int exit_code = print_layer_gradcheck(registry_with_wrong_layer(), {.type = "wrong_backward"}, out);
    CHECK(exit_code == 1);
    const LayerGradcheckReport report = gradcheck_layer(registry_with_wrong_layer(), {.type = "wrong_backward"});
    REQUIRE(report.tensors.size() == 3);
    CHECK(report.tensors[0].result.ok);        // x
    CHECK_FALSE(report.tensors[1].result.ok);  // weight
    CHECK_FALSE(report.tensors[2].reached);    // unused
    INFO(out.str());
    CHECK(out.str().find("  x ") != std::string::npos);
    CHECK(out.str().find("FAIL    zero gradient everywhere") != std::string::npos);
    CHECK(out.str().find("wrong_backward: FAIL, 2 of 3 tensors") != std::string::npos);
}

TEST_CASE("tapeformer gradcheck --layer: 0 on a pass, 2 for an unknown type or a required key left out", "[integration]") {
    const auto passed = test::run_cli({"gradcheck", "--layer", "local_conv_mixer", "--set", "kernel_size=2"});
    CHECK(passed.exit_code == 0);
    CHECK(passed.out.find("conv_weight") != std::string::npos);
    CHECK(passed.out.find("local_conv_mixer: ok, all 9 tensors match") != std::string::npos);

    const auto unknown = test::run_cli({"gradcheck", "--layer", "no_such_layer"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("unknown layer type 'no_such_layer'; known: ") != std::string::npos);
    CHECK(unknown.err.find("local_conv_mixer") != std::string::npos);

    const auto missing = test::run_cli({"gradcheck", "--layer", "multi_head_attention"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err.find("layer.heads: missing (required)") != std::string::npos);
    CHECK(missing.err.find("--set KEY=VALUE") != std::string::npos);

    const auto no_memory = test::run_cli({"gradcheck", "--layer", "transformer_decoder_block", "--set", "heads=2"});
    CHECK(no_memory.exit_code == 2);
    CHECK(no_memory.err.find("needs --memory") != std::string::npos);

    CHECK(test::run_cli({"gradcheck", "--layer", "multi_head_attention", "--set", "heads=2"}).exit_code == 0);
    CHECK(test::run_cli({"gradcheck", "softmax", "--layer", "gru"}).exit_code == 2);
}
