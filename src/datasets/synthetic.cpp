// What the synthetic task rows are made of: alphabets, draws and key readers; and distinct seeded
// splits of any task.
#include "datasets/synthetic.h"

#include <algorithm>
#include <set>

namespace tf::train {

namespace {
const std::string kAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
}  // namespace

std::vector<std::string> first_symbols(int64_t count) {
    std::vector<std::string> symbols;
    for (char c : kAlphabet.substr(0, static_cast<std::size_t>(count))) symbols.emplace_back(1, c);
    return symbols;
}

void read_num_symbols(config::JsonReader& data, SyntheticSettings& settings, int64_t most) {
    settings.num_symbols = data.integer("num_symbols", 10, {.min = 2, .max = most});
}

void read_lengths(config::JsonReader& data, SyntheticSettings& settings, int64_t upper) {
    const LengthRange lengths = read_length_range(data, 10, upper);
    settings.min_length = lengths.min_length;
    settings.max_length = lengths.max_length;
}

void read_symbol_sequence_keys(config::JsonReader& data, SyntheticSettings& settings) {
    read_num_symbols(data, settings, static_cast<int64_t>(kAlphabet.size()));
    read_lengths(data, settings, kMaxSyntheticLength);
}

int64_t draw_length(const SyntheticSettings& settings, Rng& rng) {
    return settings.min_length + rng.below(settings.max_length - settings.min_length + 1);
}

std::vector<int64_t> draw_symbols(int64_t length, int64_t count, Rng& rng) {
    std::vector<int64_t> ids(static_cast<std::size_t>(length));
    for (int64_t& id : ids) id = kNumSpecial + rng.below(count);
    return ids;
}

Tokenizer synthetic_tokenizer(const SyntheticTask& task, const SyntheticSettings& settings) {
    return Tokenizer::from_symbols(TokenizerKind::character, task.symbols(settings));
}

void generate_splits(const SyntheticTask& task, const SyntheticSettings& settings, int64_t train_size,
                     int64_t valid_size, int64_t test_size, uint64_t seed, ExampleSplits& splits) {
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
            Example example = task.generate(settings, rng);
            if (seen.insert(example.src).second) split.push_back(std::move(example));
        }
    };
    fill(splits.test, test_size);
    fill(splits.valid, valid_size);
    fill(splits.train, train_size);
}

}  // namespace tf::train
