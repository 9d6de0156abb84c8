// Reading the `data` section of a run config: every key type- and range-checked, keys that do
// not apply to the chosen source or task rejected by name. That the data file can be read is a
// new run's check (check_new_run): a saved run is read without its data for what does not need it.
#include <algorithm>

#include "config/seed_range.h"
#include "datasets/batching.h"
#include "datasets/dataset.h"
#include "datasets/synthetic.h"

namespace tf::train {

namespace {

using config::JsonReader;

const std::vector<std::string> kTextKeys{"path", "split", "tokenizer", "too_long", "min_count", "max_vocab",
                                         "train_fraction", "valid_fraction"};   // and vocab_size, with "bpe"
const std::vector<std::string> kJsonlKeys{"path", "vocab_size", "too_long", "train_fraction", "valid_fraction"};

// Every key only a synthetic source reads: its tasks' own, and the split sizes.
std::vector<std::string> synthetic_keys() {
    std::vector<std::string> keys;
    for (const SyntheticTask& task : synthetic_tasks())
        for (const std::string& key : task.keys)
            if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    keys.insert(keys.end(), {"train_size", "valid_size", "test_size"});
    return keys;
}

// A choice among `allowed`, read straight into the enum (config errors list the allowed names).
template <class Enum>
Enum choice_among(JsonReader& reader, const std::string& key, Enum fallback, std::initializer_list<Enum> allowed) {
    std::vector<std::string> names;
    for (const Enum value : allowed) names.push_back(name_of(value));
    return *enum_from_name<Enum>(reader.choice(key, name_of(fallback), names));
}

// A key that some other source or task reads is not "unknown" but misplaced: say why.
void reject_present(const JsonReader& reader, const std::vector<std::string>& keys, const std::string& why) {
    for (const std::string& key : keys)
        if (reader.has(key)) throw ConfigError(reader.path_of(key) + ": not used " + why);
}

void read_lengths(JsonReader& reader, DataConfig& config) {
    const LengthRange lengths = read_length_range(reader, 256, std::numeric_limits<int32_t>::max());
    config.min_length = lengths.min_length;
    config.max_length = lengths.max_length;
}

void read_fractions(JsonReader& reader, DataConfig& config) {
    config.train_fraction = reader.number("train_fraction", 0.8, 0.0, 1.0);
    if (config.train_fraction <= 0.0)
        throw ConfigError(reader.path_of("train_fraction") + ": expected a number in (0, 1], got 0");
    config.valid_fraction = reader.number("valid_fraction", 0.1, 0.0, 1.0);
    if (config.train_fraction + config.valid_fraction > 1.0 + 1e-12)
        throw ConfigError(reader.path_of("valid_fraction") + ": train_fraction + valid_fraction must be ≤ 1, got " +
                          std::to_string(config.train_fraction) + " + " + std::to_string(config.valid_fraction));
}

// "bpe" learns its merges up to data.vocab_size; "char" and "word" count tokens (min_count, max_vocab).
void read_tokenizer(JsonReader& reader, DataConfig& config) {
    config.tokenizer = choice_among(reader, "tokenizer", TokenizerKind::character,
                                    {TokenizerKind::character, TokenizerKind::word, TokenizerKind::bpe});
    if (config.tokenizer != TokenizerKind::bpe) {
        reject_present(reader, {"vocab_size"}, "when data.source is \"text\" and data.tokenizer is not \"bpe\"");
        return;
    }
    reject_present(reader, {"min_count", "max_vocab"}, "with data.tokenizer \"bpe\" (data.vocab_size sizes it)");
    if (!reader.has("vocab_size"))
        throw ConfigError(reader.path_of("vocab_size") + ": required with data.tokenizer \"bpe\": the vocabulary's size, " +
                          "at least " + std::to_string(kNumSpecial + 256) + " (the special tokens and the 256 bytes)");
    const int64_t smallest = kNumSpecial + 256;
    config.vocab_size = reader.integer("vocab_size", {.max = 1 << 16});   // its merges ride in every checkpoint
    if (config.vocab_size < smallest)
        throw ConfigError(reader.path_of("vocab_size") + ": expected at least " + std::to_string(smallest) + " with data.tokenizer " +
                          "\"bpe\" (" + std::to_string(kNumSpecial) + " special tokens and the 256 byte values come " +
                          "before any merge), got " + std::to_string(config.vocab_size));
}

void read_text(JsonReader& reader, DataConfig& config) {
    reject_present(reader, synthetic_keys(), "when data.source is \"text\"");
    config.path = reader.string("path");
    config.split = reader.choice("split", TextSplit::lines);
    read_tokenizer(reader, config);
    config.task = {choice_among(reader, "task", TaskKind::autoencode, {TaskKind::autoencode, TaskKind::lm})};
    read_lengths(reader, config);
    config.too_long = reader.choice("too_long", TooLong::drop);
    if (config.tokenizer != TokenizerKind::bpe) {
        config.min_count = reader.integer("min_count", 1, {.min = 1, .max = std::numeric_limits<int32_t>::max()});
        config.max_vocab = reader.integer("max_vocab", 0, {.min = 0, .max = std::numeric_limits<int32_t>::max()});
        if (config.max_vocab != 0 && config.max_vocab <= kNumSpecial)
            throw ConfigError(reader.path_of("max_vocab") + ": expected 0 (no cap) or > " + std::to_string(kNumSpecial) +
                              " (the special tokens), got " + std::to_string(config.max_vocab));
    }
    read_fractions(reader, config);
}

void read_jsonl_source(JsonReader& reader, DataConfig& config) {
    reject_present(reader, {"split", "tokenizer", "min_count", "max_vocab"}, "when data.source is \"jsonl\"");
    reject_present(reader, synthetic_keys(), "when data.source is \"jsonl\"");
    config.path = reader.string("path");
    config.vocab_size = reader.integer("vocab_size", {.min = kNumSpecial + 1, .max = std::numeric_limits<int32_t>::max()});
    config.task = {choice_among(reader, "task", TaskKind::seq2seq, {TaskKind::seq2seq, TaskKind::lm})};
    read_lengths(reader, config);
    config.too_long = reader.choice("too_long", TooLong::drop);
    read_fractions(reader, config);
}

void read_synthetic(JsonReader& reader, DataConfig& config) {
    reject_present(reader, kTextKeys, "when data.source is \"synthetic\"");
    reject_present(reader, {"vocab_size"}, "when data.source is \"synthetic\"");
    const SyntheticTask& task = synthetic_task(reader.choice("task", synthetic_task_names()));
    config.task = {TaskKind::synthetic, &task};
    SyntheticSettings settings;
    task.read_keys(reader, settings);
    // The keys other tasks read, which this one does not.
    std::vector<std::string> others;
    for (const SyntheticTask& other : synthetic_tasks())
        for (const std::string& key : other.keys)
            if (std::find(task.keys.begin(), task.keys.end(), key) == task.keys.end()) others.push_back(key);
    reject_present(reader, others, "by data.task \"" + task.name + "\"");
    config.min_length = settings.min_length;
    config.max_length = settings.max_length;
    config.num_symbols = settings.num_symbols;
    config.keys = settings.keys;
    config.train_size = reader.integer("train_size", 10000, {.min = 1, .max = 100000000});
    config.valid_size = reader.integer("valid_size", 500, {.min = 0, .max = 100000000});
    config.test_size = reader.integer("test_size", 500, {.min = 0, .max = 100000000});
}

}  // namespace

DataConfig DataConfig::from_json(JsonReader& reader) {
    DataConfig config;
    config.source = reader.choice<DataSource>("source");
    if (config.source == DataSource::text) read_text(reader, config);
    else if (config.source == DataSource::jsonl) read_jsonl_source(reader, config);
    else read_synthetic(reader, config);
    config.seed = static_cast<uint64_t>(reader.integer("seed", 1, config::kSeedRange));
    config.batch_size = reader.integer("batch_size", 32, {.min = 1, .max = 1000000});
    config.bucket = reader.boolean("bucket", false);
    config.bucket_batches = reader.integer("bucket_batches", 50, {.min = 1, .max = 1000000});
    reader.finish();
    return config;
}

BatcherOptions DataConfig::batching() const {
    return BatcherOptions{.batch_size = batch_size, .shuffle = true, .bucket = bucket,
                          .bucket_batches = bucket_batches, .seed = seed, .lm = task.is_lm()};
}

}  // namespace tf::train
