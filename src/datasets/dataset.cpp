// Loading a dataset: reading a text corpus or a JSONL file, filtering by length, seeded splits,
// and a vocabulary built from the training split only (so valid/test words it lacks become <unk>).
#include "datasets/dataset.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <fstream>

#include "config/json_text.h"
#include "config/utf8.h"
#include "datasets/synthetic.h"
#include "util/files.h"

namespace tf::train {

namespace {

std::string strip_right(std::string line) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    return line;
}

struct DataLine {
    std::string text;    // without its '\n'
    int64_t number = 0;  // 1-based
    std::size_t offset = 0;  // of its first byte in the file
};

// Calls `visit` for every line of the data file `path`, after checking the file is one to read
// (input_file_problem with kMaxDataBytes) and each line is at most kMaxDataLineBytes.
void for_each_data_line(const std::string& path, const std::function<void(const DataLine&)>& visit) {
    if (const std::string problem = input_file_problem(path, kMaxDataBytes); !problem.empty())
        throw DataError(shown_path(path) + ": cannot open the data file (" + problem + ")");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DataError(path + ": cannot open");
    DataLine line;
    for (std::size_t next = 0; std::getline(in, line.text);) {
        line.offset = next;
        next += line.text.size() + 1;
        ++line.number;
        if (line.text.size() > kMaxDataLineBytes)
            throw DataError(path + ":" + std::to_string(line.number) + ": " + std::to_string(line.text.size()) +
                            " bytes, above the limit of " + std::to_string(kMaxDataLineBytes) + " for one line (docs/limits.md)");
        visit(line);
    }
}

// Keeps `sequence` if its length is in [min_length, max_length] (cutting it to max_length first
// when `truncate`); returns false if it is dropped.
template <class T>
bool fit_length(std::vector<T>& sequence, const DataConfig& config) {
    const auto length = static_cast<int64_t>(sequence.size());
    if (length < config.min_length) return false;
    if (length <= config.max_length) return true;
    if (config.too_long == TooLong::drop) return false;
    sequence.resize(static_cast<std::size_t>(config.max_length));
    return true;
}

template <class T>
std::vector<T> pick(const std::vector<T>& items, const std::vector<int64_t>& indices) {
    std::vector<T> picked;
    for (const int64_t i : indices) picked.push_back(items[static_cast<std::size_t>(i)]);
    return picked;
}

void require_training_examples(const Dataset& dataset, const DataConfig& config, std::size_t kept) {
    if (!dataset.train.empty()) return;
    throw DataError(config.path + ": no training examples: " + std::to_string(kept) + " items have " +
                    std::to_string(config.min_length) + "–" + std::to_string(config.max_length) +
                    " tokens (data.min_length, data.max_length), train_fraction " +
                    std::to_string(config.train_fraction));
}

Dataset load_text(const DataConfig& config) {
    const Tokenizer splitter = Tokenizer::from_symbols(config.tokenizer, {});
    std::vector<std::vector<std::string>> items;  // each item's token strings
    for (const std::string& text : read_text_items(config.path, config.split)) {
        std::vector<std::string> tokens = splitter.split(text);
        if (fit_length(tokens, config)) items.push_back(std::move(tokens));
    }
    const SplitIndices split = split_indices(static_cast<int64_t>(items.size()), config.train_fraction,
                                             config.valid_fraction, config.seed);
    Dataset dataset;
    dataset.task = config.task;
    dataset.tokenizer = Tokenizer::build_from_tokens(pick(items, split.train), config.tokenizer, config.min_count,
                                                     config.max_vocab);
    dataset.vocab_size = dataset.tokenizer.size();
    const auto encode = [&](const std::vector<int64_t>& indices) {
        std::vector<Example> examples;
        for (const auto& tokens : pick(items, indices)) {
            Example example{dataset.tokenizer.encode_tokens(tokens), {}};
            if (!dataset.is_lm()) example.tgt = example.src;  // autoencode: reconstruct the input
            examples.push_back(std::move(example));
        }
        return examples;
    };
    dataset.train = encode(split.train);
    dataset.valid = encode(split.valid);
    dataset.test = encode(split.test);
    require_training_examples(dataset, config, items.size());
    return dataset;
}

// With "bpe" the token counts are known only once the merges are learned from the training split,
// so the split is drawn over every item first and the length limits apply to each split after
// encoding (char and word filter first, then split).
Dataset load_text_bpe(const DataConfig& config, const Tokenizer* known) {
    const std::vector<std::string> texts = read_text_items(config.path, config.split);
    const SplitIndices split = split_indices(static_cast<int64_t>(texts.size()), config.train_fraction,
                                             config.valid_fraction, config.seed);
    Dataset dataset;
    dataset.task = config.task;
    dataset.tokenizer = known ? *known : Tokenizer::train_bpe(pick(texts, split.train), config.vocab_size);
    dataset.vocab_size = dataset.tokenizer.size();
    std::size_t kept = 0;
    const auto encode = [&](const std::vector<int64_t>& indices) {
        std::vector<Example> examples;
        for (const std::string& text : pick(texts, indices)) {
            std::vector<int64_t> ids = dataset.tokenizer.encode(text);
            if (!fit_length(ids, config)) continue;
            Example example{ids, {}};
            if (!dataset.is_lm()) example.tgt = example.src;  // autoencode: reconstruct the input
            examples.push_back(std::move(example));
            ++kept;
        }
        return examples;
    };
    dataset.train = encode(split.train);
    dataset.valid = encode(split.valid);
    dataset.test = encode(split.test);
    require_training_examples(dataset, config, kept);
    return dataset;
}

Dataset load_jsonl(const DataConfig& config) {
    std::vector<Example> examples;
    for (Example& example : read_jsonl(config.path, config.vocab_size, config.task.is_lm()))
        if (fit_length(example.src, config) && (config.task.is_lm() || fit_length(example.tgt, config)))
            examples.push_back(std::move(example));
    const SplitIndices split = split_indices(static_cast<int64_t>(examples.size()), config.train_fraction,
                                             config.valid_fraction, config.seed);
    Dataset dataset{pick(examples, split.train), pick(examples, split.valid), pick(examples, split.test),
                    Tokenizer::ids(config.vocab_size), config.vocab_size, config.task};
    require_training_examples(dataset, config, examples.size());
    return dataset;
}

Dataset load_synthetic(const DataConfig& config) {
    const SyntheticSettings settings{config.min_length, config.max_length, config.num_symbols, config.keys};
    Dataset dataset;
    dataset.task = config.task;
    dataset.tokenizer = synthetic_tokenizer(*config.task.synthetic, settings);
    dataset.vocab_size = dataset.tokenizer.size();
    ExampleSplits splits;
    generate_splits(*config.task.synthetic, settings, config.train_size, config.valid_size, config.test_size, config.seed,
                    splits);
    dataset.train = std::move(splits.train), dataset.valid = std::move(splits.valid), dataset.test = std::move(splits.test);
    return dataset;
}

// The ids of one JSONL field: a list of integers in [kUnkId, vocab_size).
std::vector<int64_t> read_ids(const nlohmann::json& list, const std::string& field, int64_t vocab_size) {
    if (!list.is_array()) throw DataError(field + ": expected a list of token ids, got " + config::describe(list));
    std::vector<int64_t> ids;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = field + "[" + std::to_string(i) + "]";
        if (!list[i].is_number_integer())
            throw DataError(where + ": expected an integer id, got " + config::describe(list[i]));
        const int64_t id = list[i].is_number_unsigned() && list[i].get<uint64_t>() > INT64_MAX ? INT64_MAX
                                                                                               : list[i].get<int64_t>();
        if (id < kUnkId)
            throw DataError(where + ": id " + std::to_string(id) +
                            " is reserved (0 <pad>, 1 <bos>, 2 <eos> are added by batching; data ids start at 3)");
        if (id >= vocab_size)
            throw DataError(where + ": id " + std::to_string(id) + " ≥ data.vocab_size " + std::to_string(vocab_size));
        ids.push_back(id);
    }
    return ids;
}

Example read_jsonl_line(const std::string& line, int64_t vocab_size, bool lm) {
    config::JsonParse parsed = config::parse_json_bounded(line);
    if (parsed.kind == config::JsonProblem::syntax) throw DataError("not valid JSON (" + parsed.problem + ")");
    if (!parsed.ok()) throw DataError(parsed.problem);
    const nlohmann::json object = std::move(parsed.value);
    if (!object.is_object()) throw DataError("expected an object {\"src\": [...], ...}, got " + config::describe(object));
    for (const auto& [key, value] : object.items())
        if (key != "src" && (lm || key != "tgt"))
            throw DataError(key + ": unknown key (expected \"src\"" + (lm ? " only, for the lm task" : " and \"tgt\"") + ")");
    if (!object.contains("src")) throw DataError("src: missing (required)");
    if (!lm && !object.contains("tgt")) throw DataError("tgt: missing (required for the seq2seq task)");
    return Example{read_ids(object["src"], "src", vocab_size), lm ? std::vector<int64_t>{} : read_ids(object["tgt"], "tgt", vocab_size)};
}

}  // namespace

std::string DataTask::name() const { return kind == TaskKind::synthetic ? synthetic->name : name_of(kind); }

std::vector<std::string> read_text_items(const std::string& path, TextSplit split) {
    std::vector<std::string> items;
    std::string stanza;
    for_each_data_line(path, [&](const DataLine& data_line) {
        if (const auto bad = config::first_invalid_utf8(data_line.text))
            throw DataError(path + ":" + std::to_string(data_line.number) + ": not UTF-8 at byte offset " +
                            std::to_string(*bad) + " of the line (offset " + std::to_string(data_line.offset + *bad) +
                            " in the file); text data must be UTF-8");
        std::string line = strip_right(data_line.text);
        if (split == TextSplit::lines) {
            if (!line.empty()) items.push_back(line);
        } else if (!line.empty()) {
            stanza += (stanza.empty() ? "" : "\n") + line;
        } else if (!stanza.empty()) {
            items.push_back(std::move(stanza));
            stanza.clear();
        }
    });
    if (!stanza.empty()) items.push_back(std::move(stanza));
    return items;
}

std::vector<Example> read_jsonl(const std::string& path, int64_t vocab_size, bool lm) {
    std::vector<Example> examples;
    for_each_data_line(path, [&](const DataLine& line) {
        if (strip_right(line.text).empty()) return;
        try {
            examples.push_back(read_jsonl_line(line.text, vocab_size, lm));
        } catch (const DataError& error) {
            throw DataError(path + ":" + std::to_string(line.number) + ": " + error.what());
        }
    });
    return examples;
}

SplitIndices split_indices(int64_t count, double train_fraction, double valid_fraction, uint64_t seed) {
    std::vector<int64_t> order(static_cast<std::size_t>(count));
    for (int64_t i = 0; i < count; ++i) order[static_cast<std::size_t>(i)] = i;
    Rng rng(seed);
    for (int64_t i = count - 1; i > 0; --i)  // Fisher–Yates
        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(rng.below(i + 1))]);
    // ⌊f·count⌋, with a little slack so 0.29·100 (= 28.999…96 in binary) gives 29.
    const auto share = [count](double fraction) { return static_cast<int64_t>(fraction * static_cast<double>(count) + 1e-9); };
    const int64_t train_count = std::min(count, share(train_fraction));
    const int64_t valid_count = std::min(count - train_count, share(valid_fraction));
    SplitIndices split;
    split.train.assign(order.begin(), order.begin() + train_count);
    split.valid.assign(order.begin() + train_count, order.begin() + train_count + valid_count);
    split.test.assign(order.begin() + train_count + valid_count, order.end());
    return split;
}

namespace {

// The positions one example takes in the model: batching gives the decoder <bos> and the target
// (a language model's target is the sequence itself) and the encoder the source as it is.
int64_t decoder_positions(const Example& example, bool lm) {
    return static_cast<int64_t>((lm ? example.src : example.tgt).size()) + 1;
}
int64_t positions_of(const Example& example, bool lm) {
    return std::max(decoder_positions(example, lm), lm ? 0 : static_cast<int64_t>(example.src.size()));
}

// A transformer's position table ends at model.max_length: an example beyond it would fail in
// the middle of training (or of eval), after the run directory was made.
void require_positions(const Dataset& dataset, const DataConfig& config) {
    if (config.model_positions <= 0) return;
    const Example* longest = nullptr;
    std::string where;  // "example 3 of the train split"
    const std::pair<const char*, const std::vector<Example>*> splits[] = {
        {"train", &dataset.train}, {"valid", &dataset.valid}, {"test", &dataset.test}};
    for (const auto& [split, examples] : splits)
        for (std::size_t i = 0; i < examples->size(); ++i) {
            const Example& example = (*examples)[i];
            if (longest && positions_of(example, dataset.is_lm()) <= positions_of(*longest, dataset.is_lm())) continue;
            longest = &example;
            where = "example " + std::to_string(i) + " of the " + split + " split";
        }
    if (!longest) return;
    const int64_t needed = positions_of(*longest, dataset.is_lm());
    if (needed <= config.model_positions) return;
    const std::string why = needed == decoder_positions(*longest, dataset.is_lm())
                                ? std::to_string(needed - 1) + " tokens + <bos> in the decoder"
                                : std::to_string(needed) + " tokens in the encoder";
    const std::string source = config.source == DataSource::synthetic ? "data.task \"" + config.task.name() + "\""
                                                            : "data.path '" + shown_path(config.path) + "'";
    throw ConfigError("model.max_length: " + std::to_string(config.model_positions) +
                      " positions, fewer than the longest example of " + source + " needs: " + std::to_string(needed) +
                      " (" + why + ", " + where + "); raise model.max_length or lower data.max_length");
}

Dataset load_by_source(const DataConfig& config, const Tokenizer* bpe) {
    if (config.source == DataSource::text && config.tokenizer == TokenizerKind::bpe) return load_text_bpe(config, bpe);
    if (config.source == DataSource::text) return load_text(config);
    if (config.source == DataSource::jsonl) return load_jsonl(config);
    return load_synthetic(config);
}

}  // namespace

Dataset load_dataset(const DataConfig& config, const Tokenizer* bpe) {
    Dataset dataset = load_by_source(config, bpe);
    require_positions(dataset, config);
    return dataset;
}

}  // namespace tf::train
