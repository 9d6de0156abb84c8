// The synthetic task table: one row per task (n = num_symbols, L drawn from [min_length, max_length]).
//   copy                src = L symbols from the first n of "a…zA…Z0…9";   tgt = src
//   reverse             same src;                                          tgt = src reversed
//   sort                same src;                                 tgt = src sorted by id (alphabet order)
//   addition            src = A "+" B, A and B with L_A, L_B digits each (no leading zero);
//                       tgt = the digits of A + B                       alphabet "0…9+"
//   recall              src = k keys, L distractors (both from the n symbols), "?";  tgt = the k keys
//   associative_recall  src = k1 v1 … kL vL "?" kq with L distinct keys from the first n of
//                       "a…z" and values from "0…9", kq one of the keys;  tgt = its value
#include <algorithm>

#include "datasets/synthetic.h"

namespace tf::train {

namespace {

const std::vector<std::string> kDigits{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};

std::vector<std::string> joined(std::vector<std::string> symbols, const std::vector<std::string>& more) {
    symbols.insert(symbols.end(), more.begin(), more.end());
    return symbols;
}

// y_i = x_i: copying, and recalling key i of "k keys, distractors, ?".
IdealKernel identity_kernel(const Example& example) {
    return one_position_per_output(static_cast<int64_t>(example.tgt.size()), static_cast<int64_t>(example.src.size()),
                                   [](int64_t i, int64_t) { return i; });
}

// Each sorted output and each digit of a sum depends on every input symbol.
IdealKernel every_position_kernel(const Example& example) {
    return every_position_per_output(static_cast<int64_t>(example.tgt.size()), static_cast<int64_t>(example.src.size()));
}

// The tasks whose target is a function of L symbols drawn from the first n.
SyntheticTask symbol_sequence_task(std::string name, std::function<void(std::vector<int64_t>& tgt)> target_of,
                                   std::function<IdealKernel(const Example&)> ideal_kernel, bool target_is_source) {
    return {.name = std::move(name),
            .keys = kSymbolSequenceKeys,
            .read_keys = read_symbol_sequence_keys,
            .symbols = [](const SyntheticSettings& s) { return first_symbols(s.num_symbols); },
            .generate =
                [target_of](const SyntheticSettings& s, Rng& rng) {
                    Example example;
                    example.src = draw_symbols(draw_length(s, rng), s.num_symbols, rng);
                    example.tgt = example.src;
                    target_of(example.tgt);
                    return example;
                },
            .ideal_kernel = std::move(ideal_kernel),
            .target_is_source = target_is_source};
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

Example addition_example(const SyntheticSettings& s, Rng& rng) {
    const uint64_t a = draw_number(draw_length(s, rng), rng);
    const uint64_t b = draw_number(draw_length(s, rng), rng);
    Example example{digit_ids(std::to_string(a)), digit_ids(std::to_string(a + b))};
    const std::vector<int64_t> b_ids = digit_ids(std::to_string(b));
    example.src.push_back(kNumSpecial + 10);  // "+"
    example.src.insert(example.src.end(), b_ids.begin(), b_ids.end());
    return example;
}

Example recall_example(const SyntheticSettings& s, Rng& rng) {
    const int64_t query_marker = kNumSpecial + s.num_symbols;  // "?"
    Example example;
    example.tgt = draw_symbols(s.keys, s.num_symbols, rng);
    const std::vector<int64_t> distractor = draw_symbols(draw_length(s, rng), s.num_symbols, rng);
    example.src = example.tgt;
    example.src.insert(example.src.end(), distractor.begin(), distractor.end());
    example.src.push_back(query_marker);
    return example;
}

// Alphabet: n keys (ids 4 … 4+n−1), 10 values (digits), then "?".
Example associative_recall_example(const SyntheticSettings& s, Rng& rng) {
    const int64_t pairs = draw_length(s, rng);
    std::vector<int64_t> keys(static_cast<std::size_t>(s.num_symbols));
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = kNumSpecial + static_cast<int64_t>(i);
    for (int64_t i = 0; i < pairs; ++i)  // a partial Fisher–Yates: the first `pairs` keys are distinct
        std::swap(keys[static_cast<std::size_t>(i)], keys[static_cast<std::size_t>(i + rng.below(s.num_symbols - i))]);
    Example example;
    std::vector<int64_t> values;
    for (int64_t i = 0; i < pairs; ++i) {
        values.push_back(kNumSpecial + s.num_symbols + rng.below(10));
        example.src.push_back(keys[static_cast<std::size_t>(i)]);
        example.src.push_back(values.back());
    }
    const auto query = static_cast<std::size_t>(rng.below(pairs));
    example.src.push_back(kNumSpecial + s.num_symbols + 10);  // "?"
    example.src.push_back(keys[query]);
    example.tgt = {values[query]};
    return example;
}

// src = k1 v1 … kL vL "?" kq: the answer is the value after the key equal to kq, so it needs kq
// (the last position) and that value.
IdealKernel associative_recall_kernel(const Example& example) {
    const auto targets = static_cast<int64_t>(example.tgt.size());
    const auto sources = static_cast<int64_t>(example.src.size());
    IdealKernel ideal = one_position_per_output(targets, sources, [](int64_t, int64_t S) { return S - 1; });
    for (int64_t j = 0; j + 1 < sources - 2; j += 2)
        if (example.src[static_cast<std::size_t>(j)] == example.src.back())
            for (int64_t i = 0; i < targets; ++i) ideal[static_cast<std::size_t>(i)][static_cast<std::size_t>(j + 1)] = 1.0;
    return ideal;
}

std::deque<SyntheticTask> builtin_tasks() {
    std::deque<SyntheticTask> tasks;
    tasks.push_back(symbol_sequence_task("copy", [](std::vector<int64_t>&) {}, identity_kernel, true));
    tasks.push_back(symbol_sequence_task(
        "reverse", [](std::vector<int64_t>& tgt) { std::reverse(tgt.begin(), tgt.end()); },
        [](const Example& example) {
            return one_position_per_output(static_cast<int64_t>(example.tgt.size()), static_cast<int64_t>(example.src.size()),
                                           [](int64_t i, int64_t S) { return S - 1 - i; });
        },
        false));
    tasks.push_back(symbol_sequence_task(
        "sort", [](std::vector<int64_t>& tgt) { std::sort(tgt.begin(), tgt.end()); }, every_position_kernel, false));
    tasks.push_back({.name = "addition",
                     .keys = {},
                     .read_keys =
                         [](config::JsonReader& data, SyntheticSettings& s) {
                             if (data.has("num_symbols"))
                                 throw ConfigError(data.path_of("num_symbols") +
                                                   ": not used by data.task \"addition\" (its alphabet is the digits and \"+\")");
                             read_lengths(data, s, 18);  // operand digits: 18 keeps the sum inside 64 bits
                         },
                     .symbols = [](const SyntheticSettings&) { return joined(kDigits, {"+"}); },
                     .generate = addition_example,
                     .ideal_kernel = every_position_kernel});
    tasks.push_back({.name = "recall",
                     .keys = joined(kSymbolSequenceKeys, {"keys"}),
                     .read_keys =
                         [](config::JsonReader& data, SyntheticSettings& s) {
                             read_symbol_sequence_keys(data, s);
                             s.keys = data.integer("keys", 4, {.min = 1, .max = 100000});
                         },
                     .symbols = [](const SyntheticSettings& s) { return joined(first_symbols(s.num_symbols), {"?"}); },
                     .generate = recall_example,
                     .ideal_kernel = identity_kernel});
    tasks.push_back({.name = "associative_recall",
                     .keys = kSymbolSequenceKeys,
                     .read_keys =
                         [](config::JsonReader& data, SyntheticSettings& s) {
                             read_num_symbols(data, s, 26);      // the keys are letters a…z
                             read_lengths(data, s, s.num_symbols);  // L distinct keys
                         },
                     .symbols =
                         [](const SyntheticSettings& s) { return joined(joined(first_symbols(s.num_symbols), kDigits), {"?"}); },
                     .generate = associative_recall_example,
                     .ideal_kernel = associative_recall_kernel});
    return tasks;
}

std::deque<SyntheticTask>& task_table() {
    static std::deque<SyntheticTask> tasks = builtin_tasks();
    return tasks;
}

}  // namespace

const std::deque<SyntheticTask>& synthetic_tasks() { return task_table(); }

std::vector<std::string> synthetic_task_names() {
    std::vector<std::string> names;
    for (const SyntheticTask& task : synthetic_tasks()) names.push_back(task.name);
    return names;
}

const SyntheticTask& synthetic_task(const std::string& name) {
    for (const SyntheticTask& task : synthetic_tasks())
        if (task.name == name) return task;
    std::string known;
    for (const std::string& each : synthetic_task_names()) known += (known.empty() ? "" : ", ") + each;
    throw ValueError("synthetic task '" + name + "' is not one of " + known);
}

const SyntheticTask& register_synthetic_task(SyntheticTask task) {
    if (task.name.empty() || !task.read_keys || !task.symbols || !task.generate)
        throw ValueError("register_synthetic_task: a task needs a name, read_keys, symbols and generate");
    for (const SyntheticTask& known : synthetic_tasks())
        if (known.name == task.name) throw ValueError("register_synthetic_task: a task named '" + task.name + "' exists");
    return task_table().emplace_back(std::move(task));
}

}  // namespace tf::train
