// Atomic writes with POSIX calls (std::ofstream cannot fsync).
#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "autograd/error.h"

namespace tf {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path) {
    throw FileError(what + " '" + shown_path(path) + "': " + std::strerror(errno));
}

// write(2) until every byte is out; EINTR retried, any other failure (ENOSPC, EIO, EROFS) thrown.
void write_all(int fd, const std::string& contents, const std::string& path) {
    std::size_t written = 0;
    while (written < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("cannot write", path);
        written += static_cast<std::size_t>(n);
    }
}

// Opens `path` without blocking (a FIFO would wait for a writer or reader forever) and refuses
// anything but a regular file.
int open_regular(const std::string& path, int flags, const std::string& what) {
    const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0) fail(what, path);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        throw FileError(what + " '" + shown_path(path) + "': not a regular file");
    }
    return fd;
}

void sync_directory_of(const std::string& path) {
    const std::string directory = std::filesystem::path(path).parent_path().string();
    const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY);
    if (fd < 0) return;  // best effort: the rename itself already happened atomically
    ::fsync(fd);
    ::close(fd);
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& contents) {
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("cannot create", temporary);
    try {
        write_all(fd, contents, temporary);
    } catch (const FileError&) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(temporary.c_str());
        fail("cannot flush", temporary);
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        ::unlink(temporary.c_str());
        fail("cannot rename onto", path);
    }
    sync_directory_of(path);
}

std::string read_file(const std::string& path) {
    const int fd = open_regular(path, O_RDONLY, "cannot read");
    std::string text;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            errno = error;
            fail("cannot read", path);
        }
        if (n == 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

void append_to_file(const std::string& path, const std::string& text) {
    const int fd = open_regular(path, O_WRONLY | O_APPEND | O_CREAT, "cannot append to");
    try {
        write_all(fd, text, path);
    } catch (const FileError&) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0) fail("cannot append to", path);
}

bool file_exists(const std::string& path) {
    std::error_code error;  // a name too long for the system is a file that does not exist
    return std::filesystem::exists(path, error);
}

std::string shown_path(const std::string& path) { return path.size() > 200 ? path.substr(0, 200) + "…" : path; }

std::string input_file_problem(const std::string& path, std::size_t max_bytes) {
    if (path.empty()) return "the path is empty";
    if (path.size() > PATH_MAX)
        return "the path is " + std::to_string(path.size()) + " characters, longer than the system's " +
               std::to_string(PATH_MAX);
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (status.type() == std::filesystem::file_type::not_found) return "not found";
    if (error) return "cannot read it: " + error.message();
    if (status.type() == std::filesystem::file_type::directory) return "is a directory, not a file";
    if (status.type() != std::filesystem::file_type::regular) return "is not a regular file";
    const auto bytes = std::filesystem::file_size(path, error);
    if (error) return "cannot read it: " + error.message();
    if (bytes > max_bytes)
        return std::to_string(bytes) + " bytes, above the limit of " + std::to_string(max_bytes) + " (docs/limits.md)";
    return "";
}

void make_directories(const std::string& path) {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) throw FileError("cannot create the folder '" + shown_path(path) + "': " + error.message());
}

namespace {
// The pid in "<name>.tmp-<pid>", or 0 when `name` is not such a temporary.
pid_t temporary_owner(const std::string& name) {
    const std::size_t mark = name.rfind(".tmp-");
    if (mark == std::string::npos || mark == 0) return 0;
    const std::string digits = name.substr(mark + 5);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return static_cast<pid_t>(std::stol(digits));
}

// kill(pid, 0) sends nothing; ESRCH says no such process. EPERM (another user's) counts as alive.
bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }
}  // namespace

std::vector<std::string> remove_stale_temporaries(const std::string& directory) {
    std::vector<std::string> removed;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
        const pid_t owner = temporary_owner(entry.path().filename().string());
        if (owner <= 0 || process_exists(owner) || !entry.is_regular_file(error)) continue;
        if (std::filesystem::remove(entry.path(), error)) removed.push_back(entry.path().string());
    }
    return removed;
}

}  // namespace tf
