// Atomic file writes, and cleaning up after the ones a kill cut off.
#include "catch.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include "autograd/error.h"
#include "run_helpers.h"
#include "datasets/tokenizer.h"
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
    REQUIRE_THROWS_AS(read_file((directory / "nope").string()), FileError);
    REQUIRE_THROWS_WITH(read_file((directory / "nope").string()), Catch::Contains("cannot read") && Catch::Contains("nope"));
}

namespace {
// Whether `write` throws a FileError in a child process whose files may not grow past 16 bytes: a
// write the system refuses, as it refuses one on a full disk (EFBIG there, ENOSPC here).
bool refused_past_a_small_file_limit(const std::function<void()>& write) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const rlimit limit{16, 16};
        if (::signal(SIGXFSZ, SIG_IGN) == SIG_ERR || ::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(3);
        try {
            write();
        } catch (const FileError&) {
            ::_exit(0);
        } catch (...) {
            ::_exit(2);
        }
        ::_exit(1);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
}  // namespace

TEST_CASE("every writer reports a write the system refuses: the atomic write, the log's append, the vocabulary", "[unit]") {
    const test::TempDir dir("tapeformer-files");
    const std::string long_text(100, 'x');
    CHECK(refused_past_a_small_file_limit([&] { write_file_atomic(dir / "atomic.txt", long_text); }));
    CHECK(refused_past_a_small_file_limit([&] { append_to_file(dir / "log.jsonl", long_text); }));
    const train::Tokenizer vocabulary = train::Tokenizer::build({"a vocabulary longer than sixteen bytes"}, train::TokenizerKind::word);
    CHECK(refused_past_a_small_file_limit([&] { vocabulary.save(dir / "vocab.json"); }));
    // Nothing half-written is left where the file should be.
    CHECK_FALSE(std::filesystem::exists(dir / "atomic.txt"));
    CHECK_FALSE(std::filesystem::exists(dir / "vocab.json"));
}

TEST_CASE("a FIFO or a folder where a file should be is refused at once, for reading and appending", "[unit]") {
    const test::TempDir dir("tapeformer-files");
    REQUIRE(::mkfifo((dir / "fifo").c_str(), 0644) == 0);
    for (const std::string& path : {dir / "fifo", dir.path()}) {
        INFO(path);
        REQUIRE_THROWS_AS(read_file(path), FileError);
        REQUIRE_THROWS_AS(append_to_file(path, "row\n"), FileError);
        REQUIRE_THROWS_WITH(append_to_file(path, "row\n"), Catch::Contains(path));
    }
    REQUIRE_THROWS_WITH(read_file(dir / "fifo"), Catch::Contains("not a regular file"));
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
