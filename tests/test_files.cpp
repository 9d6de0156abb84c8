// Atomic file writes, and cleaning up after the ones a kill cut off.
#include "catch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "autograd/error.h"
#include "run_helpers.h"
#include "util/files.h"

using namespace tf;

TEST_CASE("write_file_atomic replaces a file whole and leaves no temporary behind", "[unit]") {
    const test::TempDir dir("tapeformer-files");
    const std::filesystem::path directory = dir.path();
    const std::string path = (directory / "a.txt").string();
    write_file_atomic(path, "first");
    write_file_atomic(path, "second, longer");
    CHECK(read_file(path) == "second, longer");
    CHECK(std::distance(std::filesystem::directory_iterator(directory), std::filesystem::directory_iterator()) == 1);
    REQUIRE_THROWS_AS(write_file_atomic((directory / "missing" / "b.txt").string(), "x"), Error);
    REQUIRE_THROWS_WITH(read_file((directory / "nope").string()), Catch::Contains("cannot open"));
}

TEST_CASE("remove_stale_temporaries removes a dead writer's temporaries, never a live one's or other files", "[unit]") {
    const test::TempDir dir("tapeformer-files");
    const pid_t dead = ::fork();   // exits at once; reaped below, so its pid names no process
    REQUIRE(dead >= 0);
    if (dead == 0) ::_exit(0);
    REQUIRE(::waitpid(dead, nullptr, 0) == dead);
    const std::string stale = dir / ("a.txt.tmp-" + std::to_string(dead));
    const std::vector<std::string> kept = {dir / ("b.txt.tmp-" + std::to_string(::getpid())), dir / "notes.tmp-x",
                                           dir / "c.tmp-", dir / "plain.txt"};
    test::write_text(stale, "half");
    for (const std::string& path : kept) test::write_text(path, "keep");
    CHECK(remove_stale_temporaries(dir.path()) == std::vector<std::string>{stale});
    CHECK_FALSE(std::filesystem::exists(stale));
    for (const std::string& path : kept) CHECK(std::filesystem::exists(path));
    CHECK(remove_stale_temporaries(dir / "missing").empty());
}
