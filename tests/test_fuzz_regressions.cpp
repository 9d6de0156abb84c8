// Every input a fuzzer (or the black-box fuzz of the CLI before it) found crashing a loader is kept
// under tests/fuzz-regressions/<target>/ and replayed here through the harness's own entry point
// (fuzz/targets.h), so the normal build holds the fix without clang or libFuzzer.
#include "catch.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "targets.h"
#include "source_paths.h"

namespace {
std::string bytes_of(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}
}  // namespace

TEST_CASE("every saved fuzz finding is refused with a bad-input error or accepted, never a crash", "[unit]") {
    const std::string target_name = GENERATE(from_range(tf::fuzz::target_names()));
    const std::filesystem::path folder = std::filesystem::path(TF_SOURCE_DIR) / "tests" / "fuzz-regressions" / target_name;
    INFO("target " << target_name);
    REQUIRE(std::filesystem::is_directory(folder));
    int replayed = 0;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        INFO("regression file " << entry.path().filename().string());
        REQUIRE_NOTHROW(tf::fuzz::run_target(tf::fuzz::target_named(target_name), bytes_of(entry.path())));
        ++replayed;
    }
    CHECK(replayed > 0);
}
