// `--seed N` (cli/seed_option.h).
#include "cli/seed_option.h"

#include <charconv>

#include "config/seed_range.h"

namespace tf::cli {

namespace {

// "" if `text` is a seed config::kSeedRange holds, written as a config would write it; else why not.
std::string seed_problem(const std::string& text) {
    const std::string expected = "expected an integer in [" + std::to_string(config::kSeedRange.min) + ", " +
                                 std::to_string(config::kSeedRange.max) + "], as a config's seed, got \"" + text + "\"";
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || (text.size() > 1 && text[0] == '0')) return expected;
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < config::kSeedRange.min || value > config::kSeedRange.max)
        return expected;
    return "";
}

}  // namespace

CLI::Option* add_seed_option(CLI::App& command, uint64_t& seed, const std::string& description) {
    return command.add_option("--seed", seed, description)->check(CLI::Validator(seed_problem, "SEED"));
}

}  // namespace tf::cli
