// Datasets: a text corpus (lines or stanzas), a JSONL file of token ids, or a synthetic task,
// read from the `data` section of a run config and split, deterministically from a seed, into
// train / valid / test. Every key is documented in docs/config/data.md.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "config/json_reader.h"
#include "datasets/example.h"
#include "datasets/length_range.h"
#include "datasets/tokenizer.h"

namespace tf::train {

struct SyntheticTask;  // datasets/synthetic.h: a row of the synthetic task table

// What the examples ask of a model: "task" in the data section. A text corpus is autoencoded
// (target = source) or modelled ("lm"); a jsonl file holds pairs ("seq2seq") or sequences ("lm");
// a synthetic source names a row of the synthetic task table, which makes its examples.
enum class TaskKind { autoencode, seq2seq, lm, synthetic };
inline constexpr EnumName<TaskKind> kTaskKindNames[] = {
    {TaskKind::autoencode, "autoencode"}, {TaskKind::seq2seq, "seq2seq"}, {TaskKind::lm, "lm"}};  // synthetic: the row's name
inline std::span<const EnumName<TaskKind>> enum_names(TaskKind) { return kTaskKindNames; }

struct DataTask {
    TaskKind kind = TaskKind::autoencode;
    const SyntheticTask* synthetic = nullptr;  // its row, when kind is synthetic (rows live as long as the program)
    std::string name() const;                  // as data.task spells it
    bool is_lm() const { return kind == TaskKind::lm; }
    bool operator==(const DataTask&) const = default;
};

struct Dataset {
    std::vector<Example> train, valid, test;
    Tokenizer tokenizer;
    int64_t vocab_size = 0;  // tokenizer.size(): ids are in [0, vocab_size)
    DataTask task;
    bool is_lm() const { return task.is_lm(); }
};

struct BatcherOptions;  // datasets/batching.h

// The largest text or JSONL data file read, and its longest line (docs/limits.md): the shipped
// corpora are a few hundred KB with lines under 100 bytes; /dev/zero or a multi-GB file would
// exhaust memory before any message.
inline constexpr std::size_t kMaxDataBytes = std::size_t{32} << 20;
inline constexpr std::size_t kMaxDataLineBytes = std::size_t{1} << 20;

// Where the examples come from: "source" in the data section.
enum class DataSource { text, jsonl, synthetic };
inline constexpr EnumName<DataSource> kDataSourceNames[] = {
    {DataSource::text, "text"}, {DataSource::jsonl, "jsonl"}, {DataSource::synthetic, "synthetic"}};
inline std::span<const EnumName<DataSource>> enum_names(DataSource) { return kDataSourceNames; }

// How a text corpus is cut into items: "split".
enum class TextSplit { lines, stanzas };
inline constexpr EnumName<TextSplit> kTextSplitNames[] = {{TextSplit::lines, "lines"}, {TextSplit::stanzas, "stanzas"}};
inline std::span<const EnumName<TextSplit>> enum_names(TextSplit) { return kTextSplitNames; }

// What becomes of an item above max_length: "too_long".
enum class TooLong { drop, truncate };
inline constexpr EnumName<TooLong> kTooLongNames[] = {{TooLong::drop, "drop"}, {TooLong::truncate, "truncate"}};
inline std::span<const EnumName<TooLong>> enum_names(TooLong) { return kTooLongNames; }

// The `data` section of a run config. Defaults here are the documented defaults.
struct DataConfig {
    DataSource source = DataSource::text;  // required in a config
    std::string path;                    // text, jsonl: the data file (relative to the working directory)
    TextSplit split = TextSplit::lines;  // text
    TokenizerKind tokenizer = TokenizerKind::character;  // text: char, word or bpe
    DataTask task;                       // required for jsonl and synthetic
    int64_t min_length = 1;              // shorter items are dropped (tokens; synthetic: see docs)
    int64_t max_length = 256;            // longer items are dropped or truncated (synthetic: 10)
    TooLong too_long = TooLong::drop;    // text, jsonl
    int64_t min_count = 1;               // text: rarer tokens become <unk>
    int64_t max_vocab = 0;               // text: vocabulary cap including specials, 0 = none
    int64_t vocab_size = 0;              // jsonl: ids are in [3, vocab_size); text with bpe: the vocabulary's size
    double train_fraction = 0.8;         // text, jsonl; test gets what train and valid leave
    double valid_fraction = 0.1;
    int64_t num_symbols = 10;            // synthetic: alphabet size (not addition)
    int64_t keys = 4;                    // synthetic recall: tokens to remember
    int64_t train_size = 10000, valid_size = 500, test_size = 500;  // synthetic
    uint64_t seed = 1;                   // generation, splits and batch shuffling
    int64_t batch_size = 32;
    bool bucket = false;                 // group examples of similar length into batches
    int64_t bucket_batches = 50;         // bucketing sorts within chunks of this many batches
    // Not a key of the section: a transformer's model.max_length, set by read_run_config (0 = no
    // limit, as for a recurrent model). An example longer than the positions is a ConfigError.
    int64_t model_positions = 0;

    // Reads and validates every key of the `data` object, then reader.finish() (unknown keys are
    // errors); errors name the JSON path ("data.max_length: …").
    static DataConfig from_json(config::JsonReader& reader);
    BatcherOptions batching() const;  // the Batcher settings for the training split
};

// Builds the dataset a config describes. Throws DataError naming file:line for bad data, and
// ConfigError naming model.max_length when an example does not fit config.model_positions.
// A "bpe" config learns its merges from the training split, unless `bpe` gives them (a run's own,
// from its vocab.json: loading a run replays its merges, it does not learn them again).
Dataset load_dataset(const DataConfig& config, const Tokenizer* bpe = nullptr);

// The items of a text corpus: non-blank lines, or blank-line-separated stanzas (lines joined
// by '\n'); trailing whitespace and '\r' are stripped from every line. The file must be UTF-8
// (the vocabulary is saved as JSON, which holds nothing else): a bad byte is a DataError naming
// the line and the byte's offset.
std::vector<std::string> read_text_items(const std::string& path, TextSplit split);
// A JSONL file, one {"src": [ids], "tgt": [ids]} object per non-blank line ("tgt" absent when
// `lm`); ids must be in [kUnkId, vocab_size) since 0–2 are added by batching.
std::vector<Example> read_jsonl(const std::string& path, int64_t vocab_size, bool lm);
struct SplitIndices {
    std::vector<int64_t> train, valid, test;
};
// Shuffles `count` indices with Rng(seed) and cuts them: train gets ⌊train_fraction·count⌋,
// valid ⌊valid_fraction·count⌋, test the rest.
SplitIndices split_indices(int64_t count, double train_fraction, double valid_fraction, uint64_t seed);

}  // namespace tf::train
