// Synthetic sequence tasks drawn from a seeded Rng: each has a small fixed alphabet (a char-level
// tokenizer, so decode shows e.g. "a1b2?b" → "2") and a target that is a simple function of the
// source, which makes them the quickest check that a model can learn to attend.
#pragma once
#include <string>
#include <vector>

#include "autograd/random.h"
#include "train/dataset.h"

namespace tf::train {

// Token layouts (n = num_symbols, L drawn uniformly from [min_length, max_length]):
//   copy                src = L symbols from the first n of "a…zA…Z0…9";   tgt = src
//   reverse             same src;                                          tgt = src reversed
//   sort                same src;                                 tgt = src sorted by id (alphabet order)
//   addition            src = A "+" B, A and B with L_A, L_B digits each (no leading zero);
//                       tgt = the digits of A + B                       alphabet "0…9+"
//   recall              src = k keys, L distractors (both from the n symbols), "?";  tgt = the k keys
//   associative_recall  src = k1 v1 … kL vL "?" kq with L distinct keys from the first n of
//                       "a…z" and values from "0…9", kq one of the keys;  tgt = its value
struct SyntheticTask {
    std::string name;
    int64_t min_length = 1, max_length = 10;
    int64_t num_symbols = 10;  // unused by addition
    int64_t keys = 4;          // recall only
};

inline const std::vector<std::string> kSyntheticTasks{"copy", "reverse", "sort", "addition", "recall",
                                                      "associative_recall"};

// The task's symbols in id order (ids kNumSpecial, kNumSpecial + 1, …).
std::vector<std::string> synthetic_symbols(const SyntheticTask& task);
Tokenizer synthetic_tokenizer(const SyntheticTask& task);
// One example of the task, drawn from `rng`.
Example generate_example(const SyntheticTask& task, Rng& rng);
// test_size, then valid_size, then train_size distinct examples (by src), so changing train_size
// leaves valid and test as they were. Throws ConfigError if the task has too few distinct examples.
void generate_splits(const SyntheticTask& task, int64_t train_size, int64_t valid_size, int64_t test_size,
                     uint64_t seed, Dataset& dataset);

}  // namespace tf::train
