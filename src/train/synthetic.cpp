// The synthetic tasks: alphabets, one generator per task, and distinct seeded splits.
#include "train/synthetic.h"

#include <algorithm>
#include <set>

namespace tf::train {

namespace {

const std::string kAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const std::string kDigits = "0123456789";

std::vector<std::string> chars_of(const std::string& text) {
    std::vector<std::string> symbols;
    for (char c : text) symbols.emplace_back(1, c);
    return symbols;
}

int64_t draw_length(const SyntheticTask& task, Rng& rng) {
    return task.min_length + rng.below(task.max_length - task.min_length + 1);
}

// `length` ids drawn uniformly from the first `count` symbols (ids kNumSpecial …).
std::vector<int64_t> draw_symbols(int64_t length, int64_t count, Rng& rng) {
    std::vector<int64_t> ids(static_cast<std::size_t>(length));
    for (int64_t& id : ids) id = kNumSpecial + rng.below(count);
    return ids;
}

// A number with `digits` decimal digits, the first non-zero unless it is a single digit.
uint64_t draw_number(int64_t digits, Rng& rng) {
    uint64_t value = digits == 1 ? static_cast<uint64_t>(rng.below(10)) : static_cast<uint64_t>(1 + rng.below(9));
    for (int64_t i = 1; i < digits; ++i) value = value * 10 + static_cast<uint64_t>(rng.below(10));
    return value;
}

// Digit characters → ids in the addition alphabet "0…9+" (digit d has id kNumSpecial + d).
std::vector<int64_t> digit_ids(const std::string& digits) {
    std::vector<int64_t> ids;
    for (char c : digits) ids.push_back(kNumSpecial + (c - '0'));
    return ids;
}

Example addition_example(const SyntheticTask& task, Rng& rng) {
    const uint64_t a = draw_number(draw_length(task, rng), rng);
    const uint64_t b = draw_number(draw_length(task, rng), rng);
    Example example{digit_ids(std::to_string(a)), digit_ids(std::to_string(a + b))};
    const std::vector<int64_t> b_ids = digit_ids(std::to_string(b));
    example.src.push_back(kNumSpecial + 10);  // "+"
    example.src.insert(example.src.end(), b_ids.begin(), b_ids.end());
    return example;
}

Example recall_example(const SyntheticTask& task, Rng& rng) {
    const int64_t query_marker = kNumSpecial + task.num_symbols;  // "?"
    Example example;
    example.tgt = draw_symbols(task.keys, task.num_symbols, rng);
    const std::vector<int64_t> distractor = draw_symbols(draw_length(task, rng), task.num_symbols, rng);
    example.src = example.tgt;
    example.src.insert(example.src.end(), distractor.begin(), distractor.end());
    example.src.push_back(query_marker);
    return example;
}

// Alphabet: n keys (ids 4 … 4+n−1), 10 values (digits), then "?".
Example associative_recall_example(const SyntheticTask& task, Rng& rng) {
    const int64_t pairs = draw_length(task, rng);
    std::vector<int64_t> keys(static_cast<std::size_t>(task.num_symbols));
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = kNumSpecial + static_cast<int64_t>(i);
    for (int64_t i = 0; i < pairs; ++i)  // a partial Fisher–Yates: the first `pairs` keys are distinct
        std::swap(keys[static_cast<std::size_t>(i)], keys[static_cast<std::size_t>(i + rng.below(task.num_symbols - i))]);
    Example example;
    std::vector<int64_t> values;
    for (int64_t i = 0; i < pairs; ++i) {
        values.push_back(kNumSpecial + task.num_symbols + rng.below(10));
        example.src.push_back(keys[static_cast<std::size_t>(i)]);
        example.src.push_back(values.back());
    }
    const auto query = static_cast<std::size_t>(rng.below(pairs));
    example.src.push_back(kNumSpecial + task.num_symbols + 10);  // "?"
    example.src.push_back(keys[query]);
    example.tgt = {values[query]};
    return example;
}

}  // namespace

std::vector<std::string> synthetic_symbols(const SyntheticTask& task) {
    const auto n = static_cast<std::size_t>(task.num_symbols);
    if (task.name == "addition") return chars_of(kDigits + "+");
    if (task.name == "recall") return chars_of(kAlphabet.substr(0, n) + "?");
    if (task.name == "associative_recall") return chars_of(kAlphabet.substr(0, n) + kDigits + "?");
    return chars_of(kAlphabet.substr(0, n));
}

Tokenizer synthetic_tokenizer(const SyntheticTask& task) {
    return Tokenizer::from_symbols("char", synthetic_symbols(task));
}

Example generate_example(const SyntheticTask& task, Rng& rng) {
    if (task.name == "addition") return addition_example(task, rng);
    if (task.name == "recall") return recall_example(task, rng);
    if (task.name == "associative_recall") return associative_recall_example(task, rng);
    Example example;
    example.src = draw_symbols(draw_length(task, rng), task.num_symbols, rng);
    example.tgt = example.src;
    if (task.name == "reverse") std::reverse(example.tgt.begin(), example.tgt.end());
    else if (task.name == "sort") std::sort(example.tgt.begin(), example.tgt.end());
    else if (task.name != "copy") throw ValueError("generate_example: unknown synthetic task \"" + task.name + "\"");
    return example;
}

void generate_splits(const SyntheticTask& task, int64_t train_size, int64_t valid_size, int64_t test_size,
                     uint64_t seed, Dataset& dataset) {
    Rng rng(seed);
    std::set<std::vector<int64_t>> seen;  // every src drawn so far, across the three splits
    const int64_t wanted = train_size + valid_size + test_size;
    const int64_t max_draws = std::max<int64_t>(1000, 20 * wanted);
    int64_t draws = 0;
    const auto fill = [&](std::vector<Example>& split, int64_t size) {
        while (static_cast<int64_t>(split.size()) < size) {
            if (++draws > max_draws)
                throw ConfigError("data: task \"" + task.name + "\" gave only " + std::to_string(seen.size()) +
                                  " distinct examples in " + std::to_string(max_draws) + " draws, but " +
                                  std::to_string(wanted) +
                                  " were asked for (train_size + valid_size + test_size): widen the lengths "
                                  "or num_symbols, or ask for fewer");
            Example example = generate_example(task, rng);
            if (seen.insert(example.src).second) split.push_back(std::move(example));
        }
    };
    fill(dataset.test, test_size);
    fill(dataset.valid, valid_size);
    fill(dataset.train, train_size);
}

}  // namespace tf::train
