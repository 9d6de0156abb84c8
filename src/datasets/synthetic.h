// Synthetic sequence tasks drawn from a seeded Rng: each has a small fixed alphabet (a char-level
// tokenizer, so decode shows e.g. "a1b2?b" → "2") and a target that is a simple function of the
// source, which makes them the quickest check that a model can learn to attend.
//
// Every task is one row of a table (synthetic_tasks()): its name, the data keys it reads, its
// alphabet, its generator and its ideal dependency kernel. The config reader, the dataset and the
// analysis all read the row, so a new task is one register_synthetic_task call (docs/extending.md).
#pragma once
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "autograd/random.h"
#include "config/json_reader.h"
#include "datasets/example.h"
#include "datasets/length_range.h"
#include "datasets/tokenizer.h"
#include "datasets/ideal_kernel.h"

namespace tf::train {

// The numbers of one configured task, which its row reads from the data section.
struct SyntheticSettings {
    int64_t min_length = 1, max_length = 10;
    int64_t num_symbols = 10;  // the alphabet's size, for the tasks that read data.num_symbols
    int64_t keys = 4;          // recall: the tokens to remember
};

// One row of the task table.
struct SyntheticTask {
    std::string name;  // data.task
    // The data keys read_keys reads besides min_length and max_length (which every source reads;
    // every task also reads train_size, valid_size and test_size). A key that some other task
    // reads but this one does not is an error naming this task.
    std::vector<std::string> keys;
    std::function<void(config::JsonReader& data, SyntheticSettings& settings)> read_keys;
    // The alphabet in id order (ids kNumSpecial, kNumSpecial + 1, …).
    std::function<std::vector<std::string>(const SyntheticSettings& settings)> symbols;
    // One example, drawn from `rng`.
    std::function<Example(const SyntheticSettings& settings, Rng& rng)> generate;
    // Which source positions each correct output of `example` depends on (datasets/ideal_kernel.h);
    // left empty for a task with no fixed positions.
    std::function<IdealKernel(const Example& example)> ideal_kernel{};
    // tgt = src, so the target of text a user types is known (analyze --input).
    bool target_is_source = false;
};

// The built-in tasks, then any registered since, in the order configs and messages list them.
// Rows are never removed, so a reference to one stays valid.
const std::deque<SyntheticTask>& synthetic_tasks();
std::vector<std::string> synthetic_task_names();
// The row named `name`; ValueError naming the known tasks when there is none.
const SyntheticTask& synthetic_task(const std::string& name);
// Adds a task to the table; ValueError when the name is taken or a function is missing.
const SyntheticTask& register_synthetic_task(SyntheticTask task);

// The pieces the built-in rows are made of, for a new row to use too.
//
// The first `count` symbols of "a…zA…Z0…9" (count ≤ 62).
std::vector<std::string> first_symbols(int64_t count);
// data.num_symbols: the alphabet's size, in [2, most], 10 by default.
void read_num_symbols(config::JsonReader& data, SyntheticSettings& settings, int64_t most);
// data.min_length and data.max_length in [1, upper], max_length 10 by default.
void read_lengths(config::JsonReader& data, SyntheticSettings& settings, int64_t upper);
inline constexpr int64_t kMaxSyntheticLength = 100000;
// The keys of a task over L symbols from the first num_symbols (copy, reverse, sort): num_symbols
// in [2, 62], and the lengths in [1, kMaxSyntheticLength].
inline const std::vector<std::string> kSymbolSequenceKeys{"num_symbols"};
void read_symbol_sequence_keys(config::JsonReader& data, SyntheticSettings& settings);
// L drawn uniformly from [min_length, max_length].
int64_t draw_length(const SyntheticSettings& settings, Rng& rng);
// `length` ids drawn uniformly from the first `count` symbols (ids kNumSpecial …).
std::vector<int64_t> draw_symbols(int64_t length, int64_t count, Rng& rng);

Tokenizer synthetic_tokenizer(const SyntheticTask& task, const SyntheticSettings& settings);
// test_size, then valid_size, then train_size distinct examples (by src), so changing train_size
// leaves valid and test as they were. Throws ConfigError if the task has too few distinct examples.
void generate_splits(const SyntheticTask& task, const SyntheticSettings& settings, int64_t train_size,
                     int64_t valid_size, int64_t test_size, uint64_t seed, ExampleSplits& splits);

}  // namespace tf::train
