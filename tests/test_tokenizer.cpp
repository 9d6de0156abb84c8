// Tokenizers: splitting rules, special ids, deterministic vocabularies, round trips, vocab.json.
#include "catch.h"
#include <filesystem>
#include <fstream>

#include "run_helpers.h"
#include "datasets/tokenizer.h"

using namespace tf;
using namespace tf::train;

using Tokens = std::vector<std::string>;

TEST_CASE("the special tokens sit at fixed ids in every vocabulary", "[unit]") {
    for (const Tokenizer& tokenizer : {Tokenizer::build({"zebra"}, TokenizerKind::character), Tokenizer::build({"a b"}, TokenizerKind::word)}) {
        CHECK(tokenizer.token(kPadId) == "<pad>");
        CHECK(tokenizer.token(kBosId) == "<bos>");
        CHECK(tokenizer.token(kEosId) == "<eos>");
        CHECK(tokenizer.token(kUnkId) == "<unk>");
        CHECK(tokenizer.id("<unk>") == kUnkId);
    }
}

TEST_CASE("char tokens are UTF-8 code points, a malformed byte is a token of its own", "[unit]") {
    CHECK(split_chars("ab\n") == Tokens{"a", "b", "\n"});
    CHECK(split_chars("é!") == Tokens{"é", "!"});
    CHECK(split_chars(std::string("a\xC3")) == Tokens{"a", "\xC3"});
}

TEST_CASE("word tokens: words, single punctuation marks, newlines, joined apostrophes and hyphens", "[unit]") {
    CHECK(split_words("Hi, you!") == Tokens{"Hi", ",", "you", "!"});
    CHECK(split_words("don't  jag-time\tend") == Tokens{"don't", "jag-time", "end"});
    CHECK(split_words("one\ntwo -- 'three'") == Tokens{"one", "\n", "two", "--", "'", "three", "'"});
    CHECK(split_words("((x))...\"\"") == Tokens{"(", "(", "x", ")", ")", "...", "\"", "\""});
}

TEST_CASE("the vocabulary is ordered by count, then by bytes, and is reproducible", "[unit]") {
    const Tokenizer tokenizer = Tokenizer::build({"bca", "cb", "c"}, TokenizerKind::character);
    // counts: c 3, b 2, a 1
    CHECK(tokenizer.size() == kNumSpecial + 3);
    CHECK(tokenizer.token(4) == "c");
    CHECK(tokenizer.token(5) == "b");
    CHECK(tokenizer.token(6) == "a");
    const Tokenizer ties = Tokenizer::build({"zyx"}, TokenizerKind::character);  // all count 1: bytes ascending
    CHECK(ties.token(4) == "x");
    CHECK(ties.token(6) == "z");
    CHECK(Tokenizer::build({"cb", "bca", "c"}, TokenizerKind::character).to_json() == tokenizer.to_json());
}

TEST_CASE("min_count and max_size cut the vocabulary", "[unit]") {
    const Tokenizer rare_dropped = Tokenizer::build({"aab"}, TokenizerKind::character, /*min_count=*/2);
    CHECK(rare_dropped.size() == kNumSpecial + 1);
    CHECK(rare_dropped.encode("ab") == std::vector<int64_t>{4, kUnkId});
    const Tokenizer capped = Tokenizer::build({"aaabbc"}, TokenizerKind::character, 1, /*max_size=*/kNumSpecial + 2);
    CHECK(capped.size() == kNumSpecial + 2);
    CHECK(capped.encode("c") == std::vector<int64_t>{kUnkId});
}

TEST_CASE("char round trip: decode(encode(text)) == text", "[unit]") {
    const std::string text = "Tyger Tyger, burning bright,\nIn the forests of the night;";
    const Tokenizer tokenizer = Tokenizer::build({text}, TokenizerKind::character);
    CHECK(tokenizer.decode(tokenizer.encode(text)) == text);
}

TEST_CASE("word round trip on ordinary text", "[unit]") {
    const std::vector<std::string> texts{
        "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate:",
        "He said \"hello, world\" (twice) and left.",
        "To see a World in a Grain of Sand; and a Heaven in a Wild Flower!",
        "Hope is the thing with feathers - that perches in the soul - [sic] {ok}",
        "Two female gossips in converse free --\nIt ends... or not?!",
    };
    const Tokenizer tokenizer = Tokenizer::build(texts, TokenizerKind::word);
    for (const std::string& text : texts) CHECK(tokenizer.decode(tokenizer.encode(text)) == text);
}

TEST_CASE("decode stops at <eos> and skips <pad> and <bos>, unknown tokens map to <unk>", "[unit]") {
    const Tokenizer tokenizer = Tokenizer::build({"ab"}, TokenizerKind::character);
    const int64_t a = tokenizer.id("a"), b = tokenizer.id("b");
    CHECK(tokenizer.decode({kBosId, a, kPadId, b, kEosId, a}) == "ab");
    CHECK(tokenizer.encode("aqb") == std::vector<int64_t>{a, kUnkId, b});
    CHECK(tokenizer.decode({a, kUnkId}) == "a<unk>");
}

TEST_CASE("the ids tokenizer parses and prints ids", "[unit]") {
    const Tokenizer tokenizer = Tokenizer::ids(10);
    CHECK(tokenizer.size() == 10);
    CHECK(tokenizer.encode("4 9 12 x") == std::vector<int64_t>{4, 9, kUnkId, kUnkId});
    CHECK(tokenizer.decode({kBosId, 5, 7, kEosId, 8}) == "5 7");
    CHECK_THROWS_AS(Tokenizer::ids(kNumSpecial), ValueError);
}

TEST_CASE("vocab.json round trip through a file", "[unit]") {
    const test::TempDir dir("tapeformer-tokenizer");
    const std::string path = dir / "vocab.json";
    for (const Tokenizer& tokenizer : {Tokenizer::build({"the cat, the hat"}, TokenizerKind::word), Tokenizer::ids(50)}) {
        tokenizer.save(path);
        const Tokenizer loaded = Tokenizer::load(path);
        CHECK(loaded.to_json() == tokenizer.to_json());
        CHECK(loaded.encode("the hat 7") == tokenizer.encode("the hat 7"));
    }
}

TEST_CASE("a malformed vocabulary is an error naming the file and the field", "[unit]") {
    using Json = nlohmann::json;
    const std::vector<std::pair<Json, std::string>> cases{
        {Json{{"kind", "chars"}, {"tokens", Json::array()}}, "vocab.json: kind: expected one of"},
        {Json{{"kind", "char"}}, "vocab.json: tokens: missing"},
        {Json{{"kind", "char"}, {"tokens", {"<pad>", "<bos>", "<eos>"}}}, "vocab.json: tokens: expected at least"},
        {Json{{"kind", "char"}, {"tokens", {"<pad>", "<eos>", "<bos>", "<unk>"}}}, "vocab.json: tokens[1]: expected the special"},
        {Json{{"kind", "char"}, {"tokens", {"<pad>", "<bos>", "<eos>", "<unk>", "a", 5}}}, "vocab.json: tokens[5]: expected a string"},
        {Json{{"kind", "char"}, {"tokens", {"<pad>", "<bos>", "<eos>", "<unk>", "a", "a"}}}, "vocab.json: tokens[5]: duplicate of tokens[4]"},
        {Json{{"kind", "ids"}, {"vocab_size", 2}}, "vocab.json: vocab_size: expected an integer"},
        {Json{{"kind", "ids"}, {"vocab_size", 9}, {"extra", 1}}, "vocab.json: extra: unknown key"},
    };
    for (const auto& [json, message] : cases) {
        INFO(json.dump());
        CHECK_THROWS_WITH(Tokenizer::from_json(json, "vocab.json"), Catch::StartsWith(message));
    }
}

TEST_CASE("loading a file that is not JSON names the file", "[unit]") {
    const test::TempDir dir("tapeformer-tokenizer");
    const std::string path = dir / "vocab.json";
    std::ofstream(path) << "{\"kind\": ";
    CHECK_THROWS_WITH(Tokenizer::load(path), Catch::StartsWith(path + ": not valid JSON"));
    std::filesystem::remove(path);
    CHECK_THROWS_WITH(Tokenizer::load(path), Catch::Contains("cannot open"));
}

TEST_CASE("vocab.json is read within the bounds of every JSON from outside", "[unit]") {
    const test::TempDir dir("tapeformer-tokenizer");
    const std::string path = dir / "vocab.json";
    const std::vector<std::pair<std::string, std::string>> cases{
        {std::string(100, '[') + std::string(100, ']'), path + ": nested deeper than 64 levels"},
        {R"({"kind": "ids", "vocab_size": 1e999})", path + ": number overflow parsing '1e999' (beyond the range of a double)"},
        {R"({"kind": "ids", "vocab_size": 9, "vocab_size": 10})", path + ": vocab_size: duplicate key"},
    };
    for (const auto& [text, message] : cases) {
        std::ofstream(path, std::ios::trunc) << text;
        CHECK_THROWS_AS(Tokenizer::load(path), DataError);
        CHECK_THROWS_WITH(Tokenizer::load(path), message);
    }
    CHECK_THROWS_WITH(Tokenizer::load(dir.path()), dir.path() + ": cannot open the vocabulary (is a directory, not a file)");
    CHECK_THROWS_WITH(Tokenizer::load("/dev/zero"), "/dev/zero: cannot open the vocabulary (is not a regular file)");
    std::filesystem::resize_file(path, kMaxVocabBytes + 1);
    CHECK_THROWS_WITH(Tokenizer::load(path), Catch::Contains("268435457 bytes, above the limit of 268435456"));
}
