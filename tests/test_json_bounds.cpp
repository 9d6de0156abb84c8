// The bounds every JSON text from outside is held to (docs/limits.md): nesting depth, numbers
// beyond double, duplicate keys; UTF-8 validation; short error descriptions of any value; and
// which paths can be read as input files.
#include "catch.h"

#include <string>

#include "config/json_bytes.h"
#include "config/json_file.h"
#include "config/json_text.h"
#include "config/utf8.h"
#include "run_helpers.h"
#include "util/files.h"

using namespace tf;
using namespace tf::config;

namespace {
std::string nested_lists(int depth) { return std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']'); }
std::string nested_objects(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "{\"a\":";
    text += "1";
    return text + std::string(static_cast<std::size_t>(depth), '}');
}
}  // namespace

TEST_CASE("JSON nested exactly to the limit is read, and one level more is refused", "[unit]") {
    const JsonParse at_limit = parse_json_bounded(nested_lists(kMaxJsonDepth));
    CHECK(at_limit.ok());
    const JsonParse objects_at_limit = parse_json_bounded(nested_objects(kMaxJsonDepth));
    REQUIRE(objects_at_limit.ok());
    CHECK(objects_at_limit.value["a"].is_object());
    for (const std::string& text : {nested_lists(kMaxJsonDepth + 1), nested_objects(kMaxJsonDepth + 1)}) {
        const JsonParse refused = parse_json_bounded(text);
        CHECK(refused.kind == JsonProblem::too_deep);
        CHECK(refused.problem == "nested deeper than 64 levels");
        CHECK(refused.value.is_null());
    }
}

TEST_CASE("JSON nested 200,000 deep is refused without exhausting the stack", "[unit]") {
    const JsonParse refused = parse_json_bounded(nested_lists(200'000));
    CHECK(refused.kind == JsonProblem::too_deep);
    REQUIRE_THROWS_WITH(parse_json_text(nested_objects(70'000), "deep.json"), "deep.json: nested deeper than 64 levels");
}

TEST_CASE("a number beyond double's range is a problem naming it, not a library exception", "[unit]") {
    const JsonParse refused = parse_json_bounded(R"({"lr": 1e999})");
    CHECK(refused.kind == JsonProblem::number_out_of_range);
    CHECK_THAT(refused.problem, Catch::Contains("1e999") && Catch::Contains("beyond the range of a double"));
    CHECK(parse_json_bounded("-1e308").ok());
    CHECK(parse_json_bounded("-1e-400").ok());  // underflow is a plain 0 (or denormal), not an error
}

TEST_CASE("JSON syntax errors give line and column, and duplicate keys their path", "[unit]") {
    const JsonParse syntax = parse_json_bounded("{\n  \"a\": ,\n}");
    CHECK(syntax.kind == JsonProblem::syntax);
    CHECK_THAT(syntax.problem, Catch::StartsWith("2:8: invalid JSON"));
    const JsonParse duplicate = parse_json_bounded(R"({"m": {"h": 1, "h": 2}})");
    CHECK(duplicate.kind == JsonProblem::duplicate_key);
    CHECK(duplicate.problem == "m.h: duplicate key");
    CHECK(parse_json_bounded(R"({"m": {"h": 1}, "n": {"h": 2}})").ok());  // equal keys in different objects
}

TEST_CASE("a --set value is refused when too deep or out of range or not UTF-8", "[unit]") {
    Json config = {{"train", {{"lr", 0.1}}}};
    REQUIRE_THROWS_WITH(apply_override(config, "train.lr=1e999"), Catch::Contains("--set train.lr: number overflow"));
    REQUIRE_THROWS_WITH(apply_override(config, "train.lr=" + nested_lists(100)), "--set train.lr: nested deeper than 64 levels");
    REQUIRE_THROWS_WITH(apply_override(config, "train.lr=ab\xff"), "--set train.lr: byte 2 of the value is not UTF-8");
    apply_override(config, "train.lr=0.5");
    CHECK(config["train"]["lr"] == 0.5);
}

TEST_CASE("first_invalid_utf8 finds the first ill-formed byte", "[unit]") {
    CHECK_FALSE(first_invalid_utf8("plain ascii").has_value());
    CHECK_FALSE(first_invalid_utf8("h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80").has_value());  // é € 😀
    struct Case {
        std::string bytes;
        std::size_t offset;
    };
    const Case cases[] = {
        {"ab\xff", 2},              // never valid
        {"a\x80", 1},               // a continuation byte with no lead
        {"\xc0\xaf", 0},            // overlong '/'
        {"x\xe0\x80\x80", 1},       // overlong three-byte form
        {"\xed\xa0\x80", 0},        // a UTF-16 surrogate, U+D800
        {"\xf4\x90\x80\x80", 0},    // above U+10FFFF
        {"ok\xe2\x82", 2},          // cut short at the end
    };
    for (const auto& [bytes, offset] : cases) {
        INFO(bytes.size());
        CHECK(first_invalid_utf8(bytes) == offset);
    }
}

TEST_CASE("set_text_field keeps JSON text UTF-8 and gives bytes that are not as hex beside it", "[unit]") {
    nlohmann::json object;
    tf::config::set_text_field(object, "text", "h\xc3\xa9");
    CHECK(object == nlohmann::json{{"text", "h\xc3\xa9"}});   // UTF-8: as it is, no hex
    // A lone lead byte, a stray continuation byte: each one U+FFFD; the hex has every byte.
    tf::config::set_text_field(object, "text", "a\xc3 \x80" "b");
    CHECK(object["text"] == "a\xef\xbf\xbd \xef\xbf\xbd" "b");
    CHECK(object["text_hex"] == "61c3208062");
    CHECK_NOTHROW(object.dump());
}

TEST_CASE("describe shows a value briefly and never walks or dumps a deep one", "[unit]") {
    CHECK(describe(Json(1.5)) == "1.5");
    CHECK(describe(Json::parse(R"([1,"x"])")) == R"([1,"x"])");
    CHECK(describe(Json::parse("[1,2,3,4,5]")) == "a list of 5");
    CHECK(describe(Json::parse("[[1]]")) == "a list of 1");
    CHECK(describe(Json::parse(R"({"a": 1})")) == "an object");
    CHECK(describe(Json(std::string(100, 'x'))) == std::string("\"").append(60, 'x').append("\"… (100 bytes)"));
    CHECK(describe(Json(std::string("a\xff"))) == "\"a\xef\xbf\xbd\"");  // U+FFFD for the bad byte
}

TEST_CASE("input_file_problem names why a path cannot be read as an input file", "[unit]") {
    test::TempDir dir;
    test::write_text(dir / "small.txt", "12345");
    CHECK(input_file_problem(dir / "small.txt", 5).empty());
    CHECK(input_file_problem(dir / "small.txt", 4) == "5 bytes, above the limit of 4 (docs/limits.md)");
    CHECK(input_file_problem(dir / "absent.txt", 10) == "not found");
    CHECK(input_file_problem(dir.path(), 10) == "is a directory, not a file");
    CHECK(input_file_problem("/dev/null", 10) == "is not a regular file");
    CHECK(input_file_problem("", 10) == "the path is empty");
    CHECK_THAT(input_file_problem(std::string(5000, 'a'), 10), Catch::StartsWith("the path is 5000 characters"));
}
