// Datasets: each synthetic task obeys its definition, generation and splits are reproducible,
// text and JSONL sources load (and their errors name file:line), and every DataConfig error
// names its JSON path.
#include "catch.h"
#include <filesystem>
#include <fstream>
#include <set>

#include "run_helpers.h"
#include "datasets/batching.h"
#include "datasets/dataset.h"
#include "train/run_config.h"
#include "datasets/synthetic.h"
#include "source_paths.h"

using namespace tf;
using namespace tf::train;
using Json = nlohmann::json;

namespace {

const std::string kTinyPoems = std::string(TF_SOURCE_DIR) + "/data/sample/tiny_poems.txt";

// `content` as the file `name` in `dir`; returns its path.
std::string write_temp(const test::TempDir& dir, const std::string& name, const std::string& content) {
    const std::string path = dir / name;
    std::ofstream(path) << content;
    return path;
}

DataConfig read_config(const Json& data) {
    config::JsonReader reader(data, "data");
    return DataConfig::from_json(reader);
}

// `count` examples of the task `name` with `settings`, drawn from one seeded Rng.
std::vector<Example> draw(const std::string& name, const SyntheticSettings& settings, int64_t count, uint64_t seed = 7) {
    Rng rng(seed);
    std::vector<Example> examples;
    for (int64_t i = 0; i < count; ++i) examples.push_back(synthetic_task(name).generate(settings, rng));
    return examples;
}

std::set<std::vector<int64_t>> sources_of(const std::vector<Example>& examples) {
    std::set<std::vector<int64_t>> sources;
    for (const Example& example : examples) sources.insert(example.src);
    return sources;
}

}  // namespace

TEST_CASE("copy, reverse and sort targets are the source copied, reversed and sorted", "[unit]") {
    for (const std::string name : {"copy", "reverse", "sort"}) {
        for (const Example& example : draw(name, {3, 9, 6, 0}, 200)) {
            INFO(name);
            REQUIRE(example.src.size() >= 3);
            REQUIRE(example.src.size() <= 9);
            for (const int64_t id : example.src) REQUIRE((id >= kNumSpecial && id < kNumSpecial + 6));
            std::vector<int64_t> expected = example.src;
            if (name == "reverse") std::reverse(expected.begin(), expected.end());
            if (name == "sort") std::sort(expected.begin(), expected.end());
            REQUIRE(example.tgt == expected);
        }
    }
}

TEST_CASE("addition targets are the decimal sum of the two operands", "[unit]") {
    const SyntheticSettings settings{1, 5, 0, 0};
    const Tokenizer tokenizer = synthetic_tokenizer(synthetic_task("addition"), settings);
    for (const Example& example : draw("addition", settings, 300)) {
        const std::string sum = tokenizer.decode(example.src), result = tokenizer.decode(example.tgt);
        INFO(sum << " = " << result);
        const std::size_t plus = sum.find('+');
        REQUIRE(plus != std::string::npos);
        const std::string a = sum.substr(0, plus), b = sum.substr(plus + 1);
        REQUIRE((a.size() >= 1 && a.size() <= 5 && b.size() >= 1 && b.size() <= 5));
        REQUIRE((a.size() == 1 || a[0] != '0'));
        REQUIRE(std::stoll(result) == std::stoll(a) + std::stoll(b));
        REQUIRE(std::to_string(std::stoll(result)) == result);
    }
}

TEST_CASE("recall: src is k keys, L distractors and '?', tgt is the first k tokens", "[unit]") {
    const SyntheticSettings settings{10, 30, 8, 3};
    const int64_t query_marker = synthetic_tokenizer(synthetic_task("recall"), settings).id("?");
    for (const Example& example : draw("recall", settings, 200)) {
        const auto distractors = static_cast<int64_t>(example.src.size()) - 3 - 1;
        REQUIRE((distractors >= 10 && distractors <= 30));
        REQUIRE(example.src.back() == query_marker);
        REQUIRE(example.tgt == std::vector<int64_t>(example.src.begin(), example.src.begin() + 3));
    }
}

TEST_CASE("associative recall: distinct keys, a query key among them, tgt its value", "[unit]") {
    const SyntheticSettings settings{2, 6, 8, 0};
    const Tokenizer tokenizer = synthetic_tokenizer(synthetic_task("associative_recall"), settings);
    std::set<std::size_t> query_positions;
    for (const Example& example : draw("associative_recall", settings, 200)) {
        const std::string text = tokenizer.decode(example.src);  // e.g. "a3c7?c"
        INFO(text << " -> " << tokenizer.decode(example.tgt));
        const std::size_t pairs = (text.size() - 2) / 2;
        REQUIRE((pairs >= 2 && pairs <= 6 && text.size() == 2 * pairs + 2));
        REQUIRE(text[text.size() - 2] == '?');
        std::set<char> keys;
        std::string value_of_query;
        for (std::size_t i = 0; i < pairs; ++i) {
            REQUIRE((text[2 * i] >= 'a' && text[2 * i] < 'a' + 8));
            REQUIRE(std::isdigit(static_cast<unsigned char>(text[2 * i + 1])));
            keys.insert(text[2 * i]);
            if (text[2 * i] == text.back()) {
                value_of_query = std::string(1, text[2 * i + 1]);
                query_positions.insert(i);
            }
        }
        REQUIRE(keys.size() == pairs);
        REQUIRE(tokenizer.decode(example.tgt) == value_of_query);
    }
    CHECK(query_positions.size() == 6);  // the query is any of the pairs, not always the same one
}

TEST_CASE("synthetic data is reproducible from the seed and changes with it", "[unit]") {
    for (const std::string& name : synthetic_task_names()) {
        INFO(name);
        const Json data{{"source", "synthetic"}, {"task", name}, {"train_size", 50}, {"valid_size", 10}, {"test_size", 10}};
        const Dataset first = load_dataset(read_config(data));
        const Dataset again = load_dataset(read_config(data));
        Json reseeded = data;
        reseeded["seed"] = 2;
        CHECK(first.train == again.train);
        CHECK(first.test == again.test);
        CHECK(load_dataset(read_config(reseeded)).train != first.train);
        CHECK(first.vocab_size == first.tokenizer.size());
    }
}

TEST_CASE("synthetic splits are disjoint, and valid/test do not depend on train_size", "[unit]") {
    Json data{{"source", "synthetic"}, {"task", "reverse"}, {"min_length", 2}, {"max_length", 4},
              {"num_symbols", 4}, {"train_size", 200}, {"valid_size", 30}, {"test_size", 30}};
    const Dataset dataset = load_dataset(read_config(data));
    CHECK(dataset.train.size() == 200);
    std::set<std::vector<int64_t>> all = sources_of(dataset.train);
    for (const auto& src : sources_of(dataset.valid)) all.insert(src);
    for (const auto& src : sources_of(dataset.test)) all.insert(src);
    CHECK(all.size() == 260);
    data["train_size"] = 100;
    const Dataset smaller = load_dataset(read_config(data));
    CHECK(smaller.valid == dataset.valid);
    CHECK(smaller.test == dataset.test);
}

TEST_CASE("a synthetic task with too few distinct examples is a config error", "[unit]") {
    const Json data{{"source", "synthetic"}, {"task", "copy"}, {"min_length", 1}, {"max_length", 2},
                    {"num_symbols", 2}, {"train_size", 10}};
    CHECK_THROWS_WITH(load_dataset(read_config(data)), Catch::Contains("distinct examples"));
}

TEST_CASE("split_indices is a seeded partition by fractions", "[unit]") {
    const SplitIndices split = split_indices(100, 0.7, 0.2, 5);
    CHECK(split.train.size() == 70);
    CHECK(split.valid.size() == 20);
    CHECK(split.test.size() == 10);
    std::vector<int64_t> all = split.train;
    all.insert(all.end(), split.valid.begin(), split.valid.end());
    all.insert(all.end(), split.test.begin(), split.test.end());
    std::sort(all.begin(), all.end());
    for (int64_t i = 0; i < 100; ++i) REQUIRE(all[static_cast<std::size_t>(i)] == i);
    CHECK(split_indices(100, 0.7, 0.2, 5).valid == split.valid);
    CHECK(split_indices(100, 0.7, 0.2, 6).valid != split.valid);
}

TEST_CASE("a text corpus splits into lines or stanzas", "[unit]") {
    CHECK(read_text_items(kTinyPoems, TextSplit::lines).size() == 24);
    const auto stanzas = read_text_items(kTinyPoems, TextSplit::stanzas);
    REQUIRE(stanzas.size() == 6);
    CHECK(stanzas[1] == "Tyger Tyger, burning bright,\nIn the forests of the night;\n"
                        "What immortal hand or eye,\nCould frame thy fearful symmetry?");
}

TEST_CASE("text autoencoding: tgt = src, every item in exactly one split, decodable", "[unit]") {
    const Dataset dataset = load_dataset(read_config(
        {{"source", "text"}, {"path", kTinyPoems}, {"split", "stanzas"}, {"tokenizer", "word"}, {"train_fraction", 0.5}}));
    CHECK(dataset.task.kind == TaskKind::autoencode);
    CHECK(dataset.train.size() == 3);
    CHECK(dataset.train.size() + dataset.valid.size() + dataset.test.size() == 6);
    std::set<std::string> decoded;
    for (const auto* split : {&dataset.train, &dataset.valid, &dataset.test})
        for (const Example& example : *split) {
            CHECK(example.tgt == example.src);
            decoded.insert(dataset.tokenizer.decode(example.src));
        }
    CHECK(decoded.size() == 6);
    const auto stanzas = read_text_items(kTinyPoems, TextSplit::stanzas);
    for (const Example& example : dataset.train)  // the vocabulary is the train split's: no <unk>
        CHECK(std::find(stanzas.begin(), stanzas.end(), dataset.tokenizer.decode(example.src)) != stanzas.end());
}

TEST_CASE("text lm task and max_length: drop or truncate", "[unit]") {
    const test::TempDir dir("tapeformer-dataset");
    const std::string path = write_temp(dir, "lengths.txt", "ab\nabcdef\nabcd\n");
    const Json base{{"source", "text"}, {"path", path}, {"task", "lm"}, {"max_length", 4}, {"train_fraction", 1.0},
                    {"valid_fraction", 0.0}};
    const Dataset dropped = load_dataset(read_config(base));
    CHECK(dropped.train.size() == 2);
    for (const Example& example : dropped.train) CHECK(example.tgt.empty());
    Json truncate = base;
    truncate["too_long"] = "truncate";
    const Dataset truncated = load_dataset(read_config(truncate));
    REQUIRE(truncated.train.size() == 3);
    for (const Example& example : truncated.train) CHECK(example.src.size() <= 4);
}

TEST_CASE("JSONL of ids loads and splits", "[unit]") {
    const test::TempDir dir("tapeformer-dataset");
    const std::string path = write_temp(dir, "ok.jsonl", "{\"src\":[4,5],\"tgt\":[5,4]}\n\n{\"src\":[3,9],\"tgt\":[9]}\n");
    const Dataset dataset = load_dataset(read_config(
        {{"source", "jsonl"}, {"path", path}, {"vocab_size", 10}, {"train_fraction", 1.0}, {"valid_fraction", 0.0}}));
    REQUIRE(dataset.train.size() == 2);
    CHECK(dataset.vocab_size == 10);
    CHECK(dataset.tokenizer.kind() == TokenizerKind::ids);
    CHECK(((dataset.train[0] == Example{{4, 5}, {5, 4}}) || (dataset.train[1] == Example{{4, 5}, {5, 4}})));
}

TEST_CASE("JSONL errors name file:line and what was wrong", "[unit]") {
    const std::vector<std::tuple<std::string, bool, std::string>> cases{
        {"{\"src\":[4],\"tgt\":[4]}\n{\"src\":[4],\"tgt\":[4]\n", false, ":2: not valid JSON"},
        {"{\"src\":[4,2],\"tgt\":[4]}\n", false, ":1: src[1]: id 2 is reserved"},
        {"\n{\"src\":[4],\"tgt\":[50]}\n", false, ":2: tgt[0]: id 50 ≥ data.vocab_size 50"},
        {"{\"src\":[4.5],\"tgt\":[4]}\n", false, ":1: src[0]: expected an integer id"},
        {"{\"src\":[4]}\n", false, ":1: tgt: missing"},
        {"{\"src\":4,\"tgt\":[4]}\n", false, ":1: src: expected a list"},
        {"[4, 5]\n", false, ":1: expected an object"},
        {"{\"src\":[4],\"tgt\":[4]}\n", true, ":1: tgt: unknown key"},
        {"{\"tgt\":[4]}\n", true, ":1: tgt: unknown key"},
    };
    const test::TempDir dir("tapeformer-dataset");
    for (const auto& [content, lm, message] : cases) {
        const std::string path = write_temp(dir, "bad.jsonl", content);
        INFO(content);
        CHECK_THROWS_WITH(read_jsonl(path, 50, lm), Catch::StartsWith(path + message));
    }
}

TEST_CASE("DataConfig reads every key, with the documented defaults", "[unit]") {
    const DataConfig defaults = read_config({{"source", "text"}, {"path", kTinyPoems}});
    CHECK(defaults.split == TextSplit::lines);
    CHECK(defaults.tokenizer == TokenizerKind::character);
    CHECK(defaults.task.kind == TaskKind::autoencode);
    CHECK(defaults.max_length == 256);
    CHECK(defaults.batch_size == 32);
    CHECK_FALSE(defaults.bucket);
    const DataConfig synthetic = read_config({{"source", "synthetic"}, {"task", "recall"}, {"keys", 5}, {"seed", 9},
                                              {"bucket", true}, {"batch_size", 8}});
    CHECK(synthetic.keys == 5);
    CHECK(synthetic.max_length == 10);
    CHECK(synthetic.batching().seed == 9);
    CHECK(synthetic.batching().bucket);
    CHECK(synthetic.batching().batch_size == 8);
    CHECK_FALSE(synthetic.batching().lm);
}

TEST_CASE("every DataConfig error names its JSON path", "[unit]") {
    const Json text{{"source", "text"}, {"path", kTinyPoems}};
    const Json jsonl{{"source", "jsonl"}, {"path", kTinyPoems}, {"vocab_size", 10}};
    const Json copy{{"source", "synthetic"}, {"task", "copy"}};
    const auto with = [](Json base, const std::string& key, const Json& value) {
        base[key] = value;
        return base;
    };
    const std::vector<std::tuple<Json, std::string, std::string>> cases{
        {Json::object(), "data.source", "missing"},
        {with(text, "source", "txt"), "data.source", "expected one of"},
        {Json{{"source", "text"}}, "data.path", "missing"},
        {with(text, "path", 5), "data.path", "expected a string"},
        {with(text, "split", "words"), "data.split", "expected one of"},
        {with(text, "tokenizer", "bytes"), "data.tokenizer", "expected one of"},
        {with(text, "tokenizer", "bpe"), "data.vocab_size", "required with data.tokenizer \"bpe\""},
        {with(with(text, "tokenizer", "bpe"), "vocab_size", 100), "data.vocab_size", "expected at least 260"},
        {with(with(with(text, "tokenizer", "bpe"), "vocab_size", 300), "max_vocab", 10), "data.max_vocab", "not used with data.tokenizer \"bpe\""},
        {with(text, "task", "copy"), "data.task", "expected one of"},
        {with(text, "min_length", 0), "data.min_length", "expected an integer"},
        {with(with(text, "min_length", 5), "max_length", 4), "data.max_length", "expected ≥ min_length"},
        {with(text, "too_long", "cut"), "data.too_long", "expected one of"},
        {with(text, "min_count", 0), "data.min_count", "expected an integer"},
        {with(text, "max_vocab", 3), "data.max_vocab", "expected 0 (no cap)"},
        {with(text, "train_fraction", 0), "data.train_fraction", "expected a number in (0, 1]"},
        {with(text, "train_fraction", 1.5), "data.train_fraction", "expected a number"},
        {with(text, "valid_fraction", 0.5), "data.valid_fraction", "train_fraction + valid_fraction"},
        {with(text, "num_symbols", 5), "data.num_symbols", "not used when data.source is \"text\""},
        {with(text, "vocab_size", 5), "data.vocab_size", "not used"},
        {with(jsonl, "vocab_size", 4), "data.vocab_size", "expected an integer"},
        {with(jsonl, "tokenizer", "word"), "data.tokenizer", "not used when data.source is \"jsonl\""},
        {with(jsonl, "task", "autoencode"), "data.task", "expected one of"},
        {Json{{"source", "synthetic"}}, "data.task", "missing"},
        {with(copy, "task", "copyy"), "data.task", "did you mean \"copy\""},
        {with(copy, "path", "x"), "data.path", "not used when data.source is \"synthetic\""},
        {with(copy, "keys", 3), "data.keys", "not used by data.task \"copy\""},
        {with(copy, "num_symbols", 1), "data.num_symbols", "expected an integer in [2, 62]"},
        {with(copy, "num_symbols", 63), "data.num_symbols", "expected an integer in [2, 62]"},
        {with(with(copy, "task", "addition"), "num_symbols", 10), "data.num_symbols", "not used by data.task"},
        {with(with(copy, "task", "addition"), "max_length", 19), "data.max_length", "expected an integer in [1, 18]"},
        {with(with(copy, "task", "associative_recall"), "num_symbols", 27), "data.num_symbols", "[2, 26]"},
        {with(with(with(copy, "task", "associative_recall"), "num_symbols", 5), "max_length", 6), "data.max_length", "[1, 5]"},
        {with(with(copy, "task", "recall"), "keys", 0), "data.keys", "expected an integer"},
        {with(copy, "train_size", 0), "data.train_size", "expected an integer"},
        {with(copy, "valid_size", -1), "data.valid_size", "expected an integer"},
        {with(copy, "seed", -1), "data.seed", "expected an integer"},
        {with(copy, "batch_size", 0), "data.batch_size", "expected an integer"},
        {with(copy, "bucket", "yes"), "data.bucket", "expected true or false"},
        {with(copy, "bucket_batches", 0), "data.bucket_batches", "expected an integer"},
        {with(copy, "shufle", true), "data.shufle", "unknown key"},
    };
    for (const auto& [data, path, message] : cases) {
        INFO(data.dump());
        CHECK_THROWS_AS(read_config(data), ConfigError);
        CHECK_THROWS_WITH(read_config(data), Catch::StartsWith(path + ": ") && Catch::Contains(message));
    }
}

TEST_CASE("a new run's data file must be one that can be read, and a saved run's config reads without it", "[unit]") {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"no/such/file.txt", "cannot use 'no/such/file.txt' as the data file (not found)"},
        {"/dev/null", "(is not a regular file)"},
        {TF_SOURCE_DIR, "(is a directory, not a file)"},
        {std::string(5000, 'x'), "(the path is 5000 characters"},
    };
    for (const auto& [path, message] : cases) {
        const Json config = {{"name", "r"},
                             {"model", {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 1}, {"ffn_hidden", 16},
                                        {"max_length", 16}}},
                             {"data", {{"source", "text"}, {"path", path}, {"task", "lm"}}},
                             {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
                             {"train", {{"max_steps", 1}}}};
        INFO(path.substr(0, 40));
        const RunConfig saved = read_run_config(config, "r");   // as eval, generate and export read a run
        CHECK_THROWS_AS(check_new_run(saved), ConfigError);
        CHECK_THROWS_WITH(check_new_run(saved), Catch::StartsWith("data.path: ") && Catch::Contains(message));
    }
}

TEST_CASE("a data file must be a regular file within 32 MiB, each line within 1 MiB", "[unit]") {
    const test::TempDir dir("tapeformer-dataset");
    CHECK_THROWS_WITH(read_text_items(dir.path(), TextSplit::lines), Catch::Contains("cannot open the data file (is a directory"));
    CHECK_THROWS_WITH(read_jsonl("/dev/null", 10, false), Catch::Contains("(is not a regular file)"));
    const std::string big = write_temp(dir, "big.txt", "");
    std::filesystem::resize_file(big, kMaxDataBytes + 1);
    CHECK_THROWS_WITH(read_text_items(big, TextSplit::lines), Catch::Contains("33554433 bytes, above the limit of 33554432"));
    // The longest line accepted, then one byte more.
    const std::string longest = std::string(kMaxDataLineBytes, 'a');
    CHECK(read_text_items(write_temp(dir, "longest.txt", "ab\n" + longest + "\n"), TextSplit::lines).size() == 2);
    const std::string too_long = write_temp(dir, "long.txt", "ab\n" + longest + "a\n");
    CHECK_THROWS_AS(read_text_items(too_long, TextSplit::lines), DataError);
    CHECK_THROWS_WITH(read_text_items(too_long, TextSplit::lines), too_long + ":2: 1048577 bytes, above the limit of 1048576 for one line (docs/limits.md)");
    const std::string too_long_jsonl = write_temp(dir, "long.jsonl", "{\"src\": [4], \"tgt\": [4]}\n" + longest + "a\n");
    CHECK_THROWS_WITH(read_jsonl(too_long_jsonl, 10, false), Catch::StartsWith(too_long_jsonl + ":2: 1048577 bytes"));
}

TEST_CASE("text that is not UTF-8 is a data error naming the file, line and byte offset", "[unit]") {
    const test::TempDir dir("tapeformer-dataset");
    // Line 3 holds Latin-1 é (E9) where UTF-8 é is C3 A9 (line 1); also an overlong '/' (C0 AF).
    const std::string path = write_temp(dir, "latin1.txt", "caf\xc3\xa9\n\nthe caf\xe9\n");
    const std::string message = path + ":3: not UTF-8 at byte offset 7 of the line (offset 14 in the file); text data must be UTF-8";
    CHECK_THROWS_AS(read_text_items(path, TextSplit::lines), DataError);
    CHECK_THROWS_WITH(read_text_items(path, TextSplit::stanzas), message);
    for (const char* tokenizer : {"char", "word"})
        CHECK_THROWS_WITH(load_dataset(read_config({{"source", "text"}, {"path", path}, {"tokenizer", tokenizer}})), message);
    CHECK_THROWS_WITH(read_text_items(write_temp(dir, "overlong.txt", "a\xc0\xaf" "b\n"), TextSplit::lines), Catch::Contains(":1: not UTF-8 at byte offset 1"));
}

TEST_CASE("an example longer than the model's positions is a config error naming model.max_length", "[unit]") {
    const test::TempDir dir("tapeformer-dataset");
    const std::string path = write_temp(dir, "lengths.txt", "ab\nabcdef\nabcd\n");
    DataConfig config = read_config({{"source", "text"}, {"path", path}, {"train_fraction", 1.0}, {"valid_fraction", 0.0}});
    config.model_positions = 7;  // "abcdef" and <bos>: 7 decoder positions, just enough
    CHECK(load_dataset(config).train.size() == 3);
    config.model_positions = 6;
    CHECK_THROWS_AS(load_dataset(config), ConfigError);
    CHECK_THROWS_WITH(load_dataset(config), Catch::StartsWith("model.max_length: 6 positions, fewer than the longest example of data.path '" + path + "' needs: 7 (6 tokens + <bos> in the decoder, example "));
    config.task = {TaskKind::lm};
    CHECK_THROWS_WITH(load_dataset(config), Catch::Contains("needs: 7 (6 tokens + <bos>"));
    // A source longer than its target: the encoder's positions count.
    const std::string ids = write_temp(dir, "ids.jsonl", "{\"src\": [4, 4, 4, 4], \"tgt\": [4]}\n");
    DataConfig jsonl = read_config({{"source", "jsonl"}, {"path", ids}, {"vocab_size", 5}, {"train_fraction", 1.0}, {"valid_fraction", 0.0}});
    jsonl.model_positions = 3;
    CHECK_THROWS_WITH(load_dataset(jsonl), Catch::Contains("needs: 4 (4 tokens in the encoder, example 0 of the train split)"));
    DataConfig copy = read_config({{"source", "synthetic"}, {"task", "copy"}, {"min_length", 5}, {"max_length", 5}, {"train_size", 10}});
    copy.model_positions = 5;
    CHECK_THROWS_WITH(load_dataset(copy), Catch::StartsWith("model.max_length: 5 positions, fewer than the longest example of data.task \"copy\" needs: 6"));
}
