// Writing files so that a crash never leaves half of one: write a temporary file beside the
// target, fsync it, rename it over the target, fsync the directory.
#pragma once
#include <string>

namespace tf {

void write_file_atomic(const std::string& path, const std::string& contents);
std::string read_file(const std::string& path);  // throws tf::Error naming the path
bool file_exists(const std::string& path);
void make_directories(const std::string& path);

}  // namespace tf
