// Config choices read as enums: every name of each enum's table round-trips through its value (the
// test reads the tables, so a new name needs no edit here), and a bad name is still a ConfigError
// naming its JSON path and the table's names.
#include "catch.h"

#include <set>

#include "config/json_reader.h"
#include "layers/feed_forward.h"
#include "layers/init.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/recurrent/cells.h"
#include "models/build.h"
#include "datasets/dataset.h"
#include "train/optim_config.h"

using namespace tf;

namespace {

// name → value → name gives the name back, for every name of Enum's table; the names are distinct.
template <class Enum>
void check_names() {
    const std::vector<std::string> names = enum_name_list<Enum>();
    CHECK_FALSE(names.empty());
    CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
    for (const std::string& name : names) {
        INFO(name);
        const std::optional<Enum> value = enum_from_name<Enum>(name);
        REQUIRE(value.has_value());
        CHECK(name_of(*value) == name);
    }
    CHECK_FALSE(enum_from_name<Enum>("no_such_name").has_value());
}

}  // namespace

TEST_CASE("every config enum name round-trips through its value", "[unit]") {
    check_names<InitKind>();
    check_names<Activation>();
    check_names<RNNCell::Nonlinearity>();
    check_names<PositionKind>();
    check_names<ModelKind>();
    check_names<train::DataSource>();
    check_names<train::TextSplit>();
    check_names<train::TooLong>();
    check_names<train::OptimizerKind>();
    check_names<train::ScheduleKind>();
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
    std::string cells;   // the cell table's names, as the message lists them
    for (const std::string& cell : recurrent_cell_names()) cells += (cells.empty() ? "\"" : ", \"") + cell + "\"";
    REQUIRE_THROWS_WITH(read_model_config(again),
                        "model.cell: expected one of " + cells + ", got \"lsmt\" (did you mean \"lstm\"?)");
    const config::Json typeless = {{"d_model", 8}};
    config::JsonReader required(typeless, "model");
    REQUIRE_THROWS_AS(required.choice<ModelKind>("type"), ConfigError);
    REQUIRE_THROWS_WITH(required.choice<ModelKind>("type"), "model.type: missing (required)");
}
