// `--seed N`, read as strictly as a config's `seed`.
#pragma once
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace tf::cli {

// Adds `--seed` to `command`, storing into `seed`. N must be plain decimal digits in the range of a
// config's seed (config::kSeedRange); anything else (-1, 2^64, 0x10, 010) is a parse error, exit 2,
// naming the option. CLI11's own reading would wrap -1 and clamp 2^64 to 2^64 − 1, and read 0x10
// as hex and 010 as octal.
CLI::Option* add_seed_option(CLI::App& command, uint64_t& seed, const std::string& description);

}  // namespace tf::cli
