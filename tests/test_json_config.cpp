// The strict JSON reader: every kind of config mistake gives an error naming the JSON path and
// what was expected (table-driven), plus duplicate keys, parse errors and --set overrides.
#include "catch.h"
#include <filesystem>

#include "config/json_file.h"
#include "config/json_reader.h"
#include "run_helpers.h"
#include "train/run_config.h"
#include "train/run_name.h"
#include "source_paths.h"

using namespace tf;
using namespace tf::config;

namespace {
// Reads a small "model" section the way a layer factory would, then checks for unknown keys.
void read_model(const Json& root) {
    JsonReader top(root, "");
    JsonReader model = top.object("model");
    model.integer("heads", 4, {.min = 1, .max = 64});
    model.integer("layers", 2, {.min = 1, .max = 48});
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
    model.integer("heads", 4, {.min = 1, .max = 64});
    model.number("dropout", 0.1, 0.0, 1.0);
    model.choice("activation", "relu", {"relu", "gelu"});
    top.string("name");
    top.boolean("verbose", false);
    CHECK(resolved == Json::parse(R"({"model": {"heads": 8, "dropout": 0.1, "activation": "relu"}, "name": "x", "verbose": false})"));
}

namespace {
// A valid run config with a transformer of `positions` positions and no decode section.
Json run_config(int64_t positions) {
    return {{"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"max_length", positions}}},
            {"data", {{"source", "synthetic"}, {"task", "copy"}}},
            {"optimizer", {{"name", "adam"}, {"lr", 0.01}}}};
}
}  // namespace

TEST_CASE("a run name holds no control character, bidirectional-text control or markup character", "[unit]") {
    using tf::train::run_name_problem;
    CHECK(run_name_problem("café_ü-1 (two)") == "");   // letters of any script, spaces and brackets stay
    CHECK(run_name_problem("a\x1b[31m") == "it contains the control character U+001B (byte 1)");
    CHECK(run_name_problem("a\tb") == "it contains the control character U+0009 (byte 1)");
    CHECK(run_name_problem("x\x7f") == "it contains the control character U+007F (byte 1)");
    CHECK(run_name_problem("x\xc2\x85") == "it contains the control character U+0085 (byte 1)");   // C1 NEL
    const std::string reorders = "which shows text in another order than it is";
    for (const auto& [name, code] : std::vector<std::pair<std::string, std::string>>{
             {"ab\xe2\x80\xae", "U+202E"}, {"ab\xe2\x81\xa6", "U+2066"}, {"ab\xe2\x81\xa9", "U+2069"},
             {"ab\xe2\x80\x8f", "U+200F"}, {"ab\xe2\x80\x8e", "U+200E"}, {"ab\xe2\x80\xaa", "U+202A"}})
        CHECK(run_name_problem(name) == "it contains the bidirectional-text control " + code + ", " + reorders + " (byte 2)");
    CHECK(run_name_problem("<svg onload=x>") == "it contains '<', which reads as markup in a report (byte 0)");
    CHECK(run_name_problem("a>b") == "it contains '>', which reads as markup in a report (byte 1)");
    CHECK(run_name_problem("say \"hi") == "it contains '\"', which reads as markup in a report (byte 4)");
}

TEST_CASE("every shipped config's name is a valid run name", "[unit]") {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TF_SOURCE_DIR) + "/configs")) {
        if (entry.path().extension() != ".json") continue;
        const Json config = Json::parse(tf::test::read_text(entry.path().string()));
        if (!config.is_object() || !config.contains("name") || !config["name"].is_string()) continue;
        INFO(entry.path());
        CHECK(tf::train::run_name_problem(config["name"].get<std::string>()) == "");
    }
}

TEST_CASE("a run name is one plain path component", "[unit]") {
    using tf::train::run_name_problem;
    CHECK(run_name_problem("poetry_gru-2") == "");
    CHECK(run_name_problem(std::string(tf::train::kMaxRunNameBytes, 'n')) == "");
    CHECK(run_name_problem(std::string(tf::train::kMaxRunNameBytes + 1, 'n')) == "it is 129 bytes, above the limit of 128");
    CHECK(run_name_problem("") == "it is empty");
    CHECK(run_name_problem("..") == "\"..\" is not a directory of its own");
    CHECK(run_name_problem(".") == "\".\" is not a directory of its own");
    CHECK(run_name_problem("runs/x") == "it contains '/'");
    CHECK(run_name_problem(std::string("a\0b", 3)) == "it contains a NUL byte");
    CHECK(run_name_problem("caf\xe9") == "byte 3 is not UTF-8");
    Json config = run_config(16);
    config["name"] = "..";
    REQUIRE_THROWS_WITH(tf::train::read_run_config(config, "x"),
                        "name: expected one plain path component for the run directory runs/<name>, got \"..\": "
                        "\"..\" is not a directory of its own");
    // The default name, from the config file's stem, is held to the same rule.
    REQUIRE_THROWS_WITH(tf::train::read_run_config(run_config(16), "caf\xe9"),
                        Catch::Contains("byte 3 is not UTF-8 (the default, the config file's stem: set \"name\")"));
}

TEST_CASE("a new run keeps decode.max_length within a transformer's positions and threads near the cores", "[unit]") {
    using tf::train::check_new_run;
    using tf::train::read_run_config;
    // Left out, decode.max_length is 128, or the positions if fewer.
    CHECK(read_run_config(run_config(64), "x").decode.max_length == 64);
    CHECK(read_run_config(run_config(512), "x").decode.max_length == 128);
    Json config = run_config(64);
    config["decode"] = {{"max_length", 64}};
    REQUIRE_NOTHROW(check_new_run(read_run_config(config, "x")));
    config["decode"] = {{"max_length", 65}};
    // A saved run may hold it (made before this rule); a new one may not.
    const tf::train::RunConfig run = read_run_config(config, "x");
    REQUIRE_THROWS_WITH(check_new_run(run), "decode.max_length: 65 tokens do not fit model.max_length (64 positions, "
                                            "<bos> included): expected at most 64");
    config = run_config(64);
    config["threads"] = tf::train::max_threads();
    REQUIRE_NOTHROW(check_new_run(read_run_config(config, "x")));
    if (tf::train::max_threads() < tf::train::kMaxThreads) {
        config["threads"] = tf::train::max_threads() + 1;
        REQUIRE_THROWS_WITH(check_new_run(read_run_config(config, "x")),
                            Catch::StartsWith("threads: expected at most " + std::to_string(tf::train::max_threads())));
    }
    config["threads"] = tf::train::kMaxThreads + 1;
    REQUIRE_THROWS_WITH(read_run_config(config, "x"), Catch::StartsWith("threads: expected an integer in [0, 1024]"));
}
