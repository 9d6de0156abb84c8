// "tokenizer": "bpe" in a run: the tokenizer's JSON (merges as id pairs: no token bytes, which need
// not be UTF-8), a char-LM config switched to BPE that trains, generates and evaluates with the
// run's own merges, and the refusals: too small a vocab_size, keys that do not apply, merges that
// differ between a checkpoint and the run's vocab.json.
#include "catch.h"

#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "autograd/error.h"
#include "run_helpers.h"
#include "datasets/dataset.h"
#include "datasets/tokenizer.h"
#include "util/files.h"
#include "source_paths.h"

using namespace tf;
using namespace tf::train;

namespace {

const std::string kCharLm = std::string(TF_SOURCE_DIR) + "/configs/char_lm.json";
const std::string kPoems = std::string(TF_SOURCE_DIR) + "/data/poetry/poems.txt";

std::vector<std::string> cli_with(std::vector<std::string> args, const std::vector<std::string>& sets) {
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    return args;
}

}  // namespace

TEST_CASE("a bpe tokenizer saves its merges as id pairs and reads back to the same encoding of any bytes", "[unit]") {
    const Tokenizer bpe = Tokenizer::train_bpe({"the cat sat on the mat", "the cat ate the rat", "\xff\xfe the"}, 280);
    CHECK(bpe.kind() == TokenizerKind::bpe);
    CHECK(bpe.size() <= 280);
    CHECK(bpe.size() > kNumSpecial + 256);
    const nlohmann::json json = bpe.to_json();
    CHECK(json.at("kind") == "bpe");
    CHECK_NOTHROW(json.dump());   // valid UTF-8: the bytes \xff\xfe are in no string
    const Tokenizer back = Tokenizer::from_json(nlohmann::json::parse(json.dump()), "vocab.json");
    std::mt19937 rng(5);
    for (int trial = 0; trial < 100; ++trial) {
        std::string bytes(rng() % 30, '\0');
        for (char& c : bytes) c = static_cast<char>(rng() % 2 ? " theca"[rng() % 6] : rng() % 256);
        INFO("trial " << trial);
        CHECK(back.encode(bytes) == bpe.encode(bytes));
        CHECK(bpe.decode(bpe.encode(bytes)) == bytes);   // no <unk>: every byte has a token
    }
    CHECK(bpe.encode("the cat").size() < std::string("the cat").size());
    CHECK_THROWS_WITH(Tokenizer::from_json({{"kind", "bpe"}, {"merges", {{4, 999}}}}, "vocab.json"),
                      Catch::Contains("vocab.json") && Catch::Contains("merges[0]"));
    CHECK_THROWS_AS(Tokenizer::from_json({{"kind", "bpe"}, {"merges", {{4}}}}, "vocab.json"), DataError);
}

TEST_CASE("a char-LM config switched to bpe trains, generates and evaluates with the run's own merges", "[integration]") {
    test::TempDir dir;
    const std::vector<std::string> bpe{"data.tokenizer=bpe", "data.vocab_size=400", "data.path=" + kPoems,
                                       "train.max_steps=4", "train.checkpoint_every=2"};
    const test::CliResult trained = test::run_cli(cli_with({"train", kCharLm, "--run-dir", dir / "lm", "--quiet"}, bpe));
    INFO(trained.err);
    REQUIRE(trained.exit_code == 0);
    const nlohmann::json vocab = nlohmann::json::parse(read_file(dir / "lm/vocab.json"));
    CHECK(vocab.at("kind") == "bpe");
    CHECK(vocab.at("merges").size() == 400 - 260);
    const test::CliResult generated = test::run_cli({"generate", "--run", dir / "lm", "--prompt", "The sea", "--max-length", "8"});
    REQUIRE(generated.exit_code == 0);
    CHECK(generated.out.rfind("The sea", 0) == 0);
    REQUIRE(test::run_cli({"eval", "--run", dir / "lm"}).exit_code == 0);
    // Merges other than the checkpoint's: refused before a weight is read, naming the checkpoint.
    nlohmann::json edited = vocab;
    edited["merges"].erase(edited["merges"].size() - 1);
    test::write_text(dir / "lm/vocab.json", edited.dump());
    const test::CliResult refused = test::run_cli({"eval", "--run", dir / "lm"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("best.safetensors") && Catch::Contains("other byte-pair merges"));
    // A resume that would learn other merges (another vocab_size) is refused before anything is written.
    const test::CliResult other = test::run_cli({"train", "--resume", dir / "lm", "--set", "data.vocab_size=500", "--quiet"});
    CHECK(other.exit_code == 2);
    CHECK_THAT(other.err, Catch::Contains("vocab_size"));
    // Its weights as the start of a char-level run: their ids mean BPE tokens, so refused.
    const test::CliResult init = test::run_cli({"train", kCharLm, "--set", "data.path=" + kPoems, "--init",
                                                dir / "lm/best.safetensors", "--run-dir", dir / "char", "--quiet"});
    CHECK(init.exit_code == 2);
    CHECK_THAT(init.err, Catch::Contains("trained with byte-pair merges") && Catch::Contains("\"char\""));
    // A run whose vocab.json is gone has lost its merges: said, not retrained silently.
    std::filesystem::remove(dir / "lm/vocab.json");
    const test::CliResult lost = test::run_cli({"eval", "--run", dir / "lm"});
    CHECK(lost.exit_code == 2);
    CHECK_THAT(lost.err, Catch::Contains("no vocab.json"));
}

TEST_CASE("data.tokenizer bpe needs a vocab_size of at least 4 + 256 and takes no min_count or max_vocab",
          "[integration]") {
    const auto refused = [](const std::vector<std::string>& sets, const std::string& says) {
        const test::CliResult result = test::run_cli(cli_with({"config", "check", kCharLm}, sets));
        INFO(result.err);
        CHECK(result.exit_code == 2);
        CHECK_THAT(result.err, Catch::Contains(says));
    };
    const std::string path = "data.path=" + kPoems;
    refused({path, "data.tokenizer=bpe", "data.vocab_size=259"}, "data.vocab_size: expected at least 260");
    refused({path, "data.tokenizer=bpe"}, "data.vocab_size: required with data.tokenizer \"bpe\"");
    refused({path, "data.tokenizer=bpe", "data.vocab_size=300", "data.min_count=2"}, "data.min_count: not used");
    refused({path, "data.tokenizer=char", "data.vocab_size=300"}, "data.vocab_size: not used");
    CHECK(test::run_cli(cli_with({"config", "check", kCharLm}, {path, "data.tokenizer=bpe", "data.vocab_size=300"})).exit_code == 0);
}

TEST_CASE("a bpe dataset learns its merges from the training split, limits lengths in its tokens, and replays given merges",
          "[integration]") {
    DataConfig config;
    config.source = DataSource::text;
    config.path = std::string(TF_SOURCE_DIR) + "/data/sample/tiny_poems.txt";
    config.tokenizer = TokenizerKind::bpe;
    config.task = {TaskKind::autoencode};
    config.vocab_size = 300;
    config.max_length = 12;   // in BPE tokens, after encoding
    config.too_long = TooLong::truncate;
    const Dataset learned = load_dataset(config);
    CHECK(learned.tokenizer.kind() == TokenizerKind::bpe);
    REQUIRE_FALSE(learned.train.empty());
    for (const Example& example : learned.train) {
        CHECK(example.src.size() <= 12);
        CHECK(example.tgt == example.src);
    }
    const Dataset replayed = load_dataset(config, &learned.tokenizer);
    CHECK(replayed.train == learned.train);
    CHECK(replayed.test == learned.test);
    CHECK(replayed.tokenizer.to_json() == learned.tokenizer.to_json());
}
