// The strict JSON reader: every kind of config mistake gives an error naming the JSON path and
// what was expected (table-driven), plus duplicate keys, parse errors and --set overrides.
#include "catch.h"

#include "config/json_file.h"
#include "config/json_reader.h"

using namespace tf;
using namespace tf::config;

namespace {
// Reads a small "model" section the way a layer factory would, then checks for unknown keys.
void read_model(const Json& root) {
    JsonReader top(root, "");
    JsonReader model = top.object("model");
    model.integer("heads", 4, 1, 64);
    model.integer("layers", 2, 1, 48);
    model.number("dropout", 0.0, 0.0, 0.99);
    model.boolean("norm_first", false);
    model.choice("activation", "relu", {"relu", "gelu"});
    model.finish();
    top.finish();
}
}  // namespace

TEST_CASE("config errors name the JSON path and what was expected", "[unit]") {
    struct Case {
        const char* json;
        const char* message;
    };
    const Case cases[] = {
        {R"({"model": {"hedas": 4}})", "model.hedas: unknown key (did you mean 'heads'?)"},
        {R"({"model": {"heads": 1.5}})", "model.heads: expected an integer in [1, 64], got 1.5"},
        {R"({"model": {"heads": -3}})", "model.heads: expected an integer in [1, 64], got -3"},
        {R"({"model": {"heads": "4"}})", "model.heads: expected an integer in [1, 64], got \"4\""},
        {R"({"model": {"layers": 100}})", "model.layers: expected an integer in [1, 48], got 100"},
        {R"({"model": {"dropout": 1.5}})", "model.dropout: expected a number in [0, 0.990000], got 1.5"},
        {R"({"model": {"norm_first": 1}})", "model.norm_first: expected true or false, got 1"},
        {R"({"model": {"activation": "gelo"}})", "model.activation: expected one of \"relu\", \"gelu\", got \"gelo\" (did you mean \"gelu\"?)"},
        {R"({"model": 3})", "model: expected an object, got 3"},
        {R"({})", "model: missing (required)"},
        {R"({"model": {}, "trian": {}})", "trian: unknown key"},
    };
    for (const Case& c : cases) {
        INFO(c.json);
        REQUIRE_THROWS_WITH(read_model(Json::parse(c.json)), c.message);
    }
    REQUIRE_NOTHROW(read_model(Json::parse(R"({"model": {"heads": 8}})")));
}

TEST_CASE("a duplicate key is an error naming its path", "[unit]") {
    REQUIRE_THROWS_WITH(parse_json_text(R"({"model": {"heads": 4, "heads": 8}})", "x.json"),
                        "x.json: model.heads: duplicate key");
    REQUIRE_THROWS_WITH(parse_json_text(R"({"a": 1, "b": {"c": 1}, "a": 2})", "x.json"), "x.json: a: duplicate key");
    REQUIRE_NOTHROW(parse_json_text(R"({"a": {"k": 1}, "b": {"k": 2}})", "x.json"));
}

TEST_CASE("invalid JSON names the file, line and column", "[unit]") {
    REQUIRE_THROWS_WITH(parse_json_text("{\n  \"a\": 1,\n  \"b\" 2\n}", "bad.json"), Catch::StartsWith("bad.json:3:"));
    REQUIRE_THROWS_WITH(load_json_file("/nonexistent/config.json"), "/nonexistent/config.json: cannot open config file (not found)");
}

TEST_CASE("overrides (--set key=value) replace values by dotted path, typed as JSON", "[unit]") {
    Json config = Json::parse(R"({"model": {"heads": 4}, "data": {"tokenizer": "char"}})");
    apply_override(config, "model.heads=8");
    apply_override(config, "data.tokenizer=word");
    apply_override(config, "model.dropout=0.1");
    CHECK(config["model"]["heads"] == 8);
    CHECK(config["data"]["tokenizer"] == "word");
    CHECK(config["model"]["dropout"] == 0.1);
    REQUIRE_THROWS_WITH(apply_override(config, "modle.heads=8"), "--set modle.heads: there is no section 'modle'");
    REQUIRE_THROWS_WITH(apply_override(config, "model.heads"), Catch::Contains("expected key.path=value"));
}

TEST_CASE("a reader with a resolved target records every value read, defaults included", "[unit]") {
    const Json given = Json::parse(R"({"model": {"heads": 8}, "name": "x"})");
    Json resolved;
    JsonReader top(given, "", &resolved);
    JsonReader model = top.object("model");
    model.integer("heads", 4, 1, 64);
    model.number("dropout", 0.1, 0.0, 1.0);
    model.choice("activation", "relu", {"relu", "gelu"});
    top.string("name");
    top.boolean("verbose", false);
    CHECK(resolved == Json::parse(R"({"model": {"heads": 8, "dropout": 0.1, "activation": "relu"}, "name": "x", "verbose": false})"));
}
