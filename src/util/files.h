// Writing files so that a crash never leaves half of one: write a temporary file beside the
// target, fsync it, rename it over the target, fsync the directory.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tf {

// Every function here throws a FileError naming the path and the system's reason (a full disk, a
// read-only folder, a file where a folder should be): the CLI's exit 2.
void write_file_atomic(const std::string& path, const std::string& contents);
// Appends `text` with every byte's write checked; for logs that grow a line at a time.
void append_to_file(const std::string& path, const std::string& text);
// The whole file; a FIFO, device or folder is refused at once instead of waiting on it.
std::string read_file(const std::string& path);
bool file_exists(const std::string& path);
// Why `path` cannot be read as an input file, or "" if it can: a path longer than PATH_MAX, not
// found, not a regular file (a directory, /dev/null, /dev/zero), or larger than `max_bytes`.
// Callers throw their own error type with it, so a hostile path is a message, not a hang.
std::string input_file_problem(const std::string& path, std::size_t max_bytes);
// A path as error messages show it: its first 200 bytes and "…" (a hostile one may be thousands).
std::string shown_path(const std::string& path);
void make_directories(const std::string& path);

// The temporaries write_file_atomic and write_safetensors leave when their process is killed
// mid-write ("<name>.tmp-<pid>"): removes those in `directory` (not below it) whose process no
// longer exists, never one of a live process, and returns their paths.
std::vector<std::string> remove_stale_temporaries(const std::string& directory);

}  // namespace tf
