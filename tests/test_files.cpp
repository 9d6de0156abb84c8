// Atomic file writes.
#include "catch.h"
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
