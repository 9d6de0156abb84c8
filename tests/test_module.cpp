// Module bookkeeping: dotted names, parameter counts, state dicts (shape-checked, naming the
// offending parameter), train/eval propagation; the registry's errors.
#include "catch.h"

#include "layers/feed_forward.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/builtin_layers.h"

using namespace tf;

namespace {
// Two feed-forward blocks under "blocks.0" and "blocks.1": names nest with dots.
class TwoBlocks : public Module {
public:
    explicit TwoBlocks(Rng& rng) {
        auto list = register_module("blocks", std::make_shared<Holder>());
        list->add(rng);
        list->add(rng);
    }

private:
    struct Holder : Module {
        void add(Rng& rng) {
            const std::string name = std::to_string(count++);
            register_module(name, std::make_shared<FeedForward>(3, 4, Activation::relu, 0.0, nullptr, InitScheme{}, rng));
        }
        int count = 0;
    };
};
}  // namespace

TEST_CASE("parameters have dotted names, in registration order, and are counted", "[unit]") {
    Rng rng(1);
    TwoBlocks model(rng);
    const auto named = model.named_parameters();
    REQUIRE(named.size() == 8);
    CHECK(named[0].first == "blocks.0.linear1.weight");
    CHECK(named[3].first == "blocks.0.linear2.bias");
    CHECK(named[7].first == "blocks.1.linear2.bias");
    CHECK(model.parameter_count() == 2 * (4 * 3 + 4 + 3 * 4 + 3));
    model.assign_names();
    CHECK(model.children()[0].second->name() == "blocks");
}

TEST_CASE("load_state_dict copies values and names what does not fit", "[unit]") {
    Rng rng(2), other_rng(3);
    TwoBlocks a(rng), b(other_rng);
    b.load_state_dict(a.state_dict());
    for (const auto& [name, tensor] : a.state_dict()) CHECK(b.state_dict().at(name).to_vector() == tensor.to_vector());
    auto state = a.state_dict();
    state.erase("blocks.1.linear1.weight");
    REQUIRE_THROWS_WITH(b.load_state_dict(state), "load_state_dict: missing parameter 'blocks.1.linear1.weight'");
    state = a.state_dict();
    state["blocks.0.linear1.weight"] = Tensor::zeros({2, 2});
    REQUIRE_THROWS_WITH(b.load_state_dict(state),
                        "load_state_dict: parameter 'blocks.0.linear1.weight' has shape (4,3), the state has (2,2)");
    state = a.state_dict();
    state["blocks.2.linear1.weight"] = Tensor::zeros({4, 3});
    REQUIRE_THROWS_WITH(b.load_state_dict(state), "load_state_dict: unknown parameter 'blocks.2.linear1.weight'");
}

TEST_CASE("train and eval reach every descendant", "[unit]") {
    Rng rng(4);
    TwoBlocks model(rng);
    model.eval();
    CHECK(!model.children()[0].second->children()[1].second->training());
    model.train();
    CHECK(model.children()[0].second->children()[1].second->training());
}

TEST_CASE("the registry builds layers by type and names its mistakes", "[unit]") {
    Rng rng(5);
    LayerBuildContext build;
    build.width = 8;
    build.init_rng = &rng;
    const auto types = builtin_layers().types();
    CHECK(std::find(types.begin(), types.end(), "multi_head_attention") != types.end());
    CHECK(std::find(types.begin(), types.end(), "gru") != types.end());
    REQUIRE_THROWS_WITH(builtin_layers().create(config::Json::parse(R"({"type": "gruu"})"), "model.layer", build),
                        Catch::StartsWith("model.layer.type: expected one of") && Catch::Contains("(did you mean \"gru\"?)"));
    REQUIRE_THROWS_WITH(builtin_layers().create(config::Json::parse(R"({"type": "gru", "hiden_size": 4})"), "model.layer", build),
                        "model.layer.hiden_size: unknown key (did you mean 'hidden_size'?)");
    LayerRegistry registry;
    registry.add("x", recurrent_layer_factory("gru"));
    REQUIRE_THROWS_WITH(registry.add("x", recurrent_layer_factory("gru")), Catch::Contains("'x' is registered twice"));
}
