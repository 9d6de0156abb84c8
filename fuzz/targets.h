// The loaders a fuzzer feeds, one entry point each, shared by the libFuzzer harnesses (fuzz/,
// built with clang) and the ctest replay of tests/fuzz-regressions/ (built with the usual
// compiler). Each takes any bytes and holds its loader to the bad-input contract: it returns
// normally when the loader accepted the bytes or refused them with tf::InputError (exit 2 in the
// CLI); any other exception escapes. Each input's tensors get 128 MiB (a bigger model is refused).
// A signal, a sanitizer report, a hang or an allocation the input does not justify is caught by
// libFuzzer itself (scripts/fuzz.sh sets the limits).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tf::fuzz {

enum class Target {
    config,       // a run config file, then `--set` overrides, separated by NUL bytes
    safetensors,  // a checkpoint file: the format, its metadata, and loading it as --init weights
    data,         // the first byte picks the reader (DataKind), the rest is the data file
    run_dir,      // config.resolved.json, checkpoints/latest and the checkpoint, separated by the first two
                  // NUL bytes (the checkpoint, last, keeps its own); loaded as `eval` loads a run
};

// The readers the data target's first byte picks (its value modulo their count).
enum class DataKind { text_char_lines, text_word_stanzas, jsonl_seq2seq, jsonl_lm, vocab_json, count };

void run_target(Target target, std::string_view bytes);

// The four targets by name ("config", …), for the replay test and scripts/fuzz.sh; throws
// std::invalid_argument for an unknown one.
Target target_named(const std::string& name);
const std::vector<std::string>& target_names();

}  // namespace tf::fuzz
