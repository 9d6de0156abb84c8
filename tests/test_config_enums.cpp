// Config choices read as enums: every name round-trips through its value, the names keep the order
// (and so the messages) of the string lists they replaced, and a bad name is still a ConfigError
// naming its JSON path.
#include "catch.h"

#include "config/json_reader.h"
#include "layers/feed_forward.h"
#include "layers/init.h"
#include "layers/recurrent/cells.h"
#include "models/build.h"
#include "train/dataset.h"
#include "train/optim_config.h"

using namespace tf;

namespace {

// name → value → name gives the name back, for every name of Enum, and the names are `expected`.
template <class Enum>
void check_names(const std::vector<std::string>& expected) {
    CHECK(enum_name_list<Enum>() == expected);
    for (const std::string& name : expected) {
        INFO(name);
        const std::optional<Enum> value = enum_from_name<Enum>(name);
        REQUIRE(value.has_value());
        CHECK(name_of(*value) == name);
    }
    CHECK_FALSE(enum_from_name<Enum>("no_such_name").has_value());
}

}  // namespace

TEST_CASE("every config enum name round-trips through its value", "[unit]") {
    check_names<InitKind>({"xavier_uniform", "kaiming_normal", "normal", "zeros", "ones"});
    check_names<Activation>({"relu", "gelu"});
    check_names<RNNCell::Nonlinearity>({"tanh", "relu"});
    check_names<PositionKind>({"sinusoidal", "learned"});
    check_names<ModelKind>({"transformer", "lm", "rnn_seq2seq"});
    check_names<train::DataSource>({"text", "jsonl", "synthetic"});
    check_names<train::TextSplit>({"lines", "stanzas"});
    check_names<train::TooLong>({"drop", "truncate"});
    check_names<train::OptimizerKind>({"sgd", "adam", "adamw"});
    check_names<train::ScheduleKind>({"constant", "linear", "cosine", "noam"});
}

TEST_CASE("an enum choice reads its value, or the fallback, and records the name", "[unit]") {
    const config::Json section = {{"positions", "learned"}};
    config::Json resolved;
    config::JsonReader reader(section, "model", &resolved);
    CHECK(reader.choice("positions", PositionKind::sinusoidal) == PositionKind::learned);
    CHECK(reader.choice("activation", Activation::relu) == Activation::relu);
    CHECK(resolved == config::Json{{"positions", "learned"}, {"activation", "relu"}});
}

TEST_CASE("an unknown enum name is a ConfigError naming its JSON path and the choices", "[unit]") {
    const config::Json section = {{"type", "rnn_seq2seq"}, {"cell", "lsmt"}};
    config::JsonReader reader(section, "model");
    REQUIRE_THROWS_AS(read_model_config(reader), ConfigError);
    config::JsonReader again(section, "model");
    REQUIRE_THROWS_WITH(read_model_config(again),
                        "model.cell: expected one of \"rnn\", \"gru\", \"lstm\", got \"lsmt\" (did you mean \"lstm\"?)");
    const config::Json typeless = {{"d_model", 8}};
    config::JsonReader required(typeless, "model");
    REQUIRE_THROWS_AS(required.choice<ModelKind>("type"), ConfigError);
    REQUIRE_THROWS_WITH(required.choice<ModelKind>("type"), "model.type: missing (required)");
}
