// A run's name becomes a directory, runs/<name> (and a comparison's, runs/<name>/runs/…), so it
// must be one plain path component: never "..", which would put the run beside runs/, nor a path.
#pragma once
#include <cstddef>
#include <string>

namespace tf::train {

// The longest name accepted (docs/limits.md): well inside a file name's 255 bytes, leaving room
// for the "-seed<N>" a comparison appends to its variants' names.
inline constexpr std::size_t kMaxRunNameBytes = 128;

// Why `name` cannot name a run directory, or "" if it can: empty, "." or "..", a '/' or a NUL
// byte in it, not UTF-8, or longer than kMaxRunNameBytes.
std::string run_name_problem(const std::string& name);

}  // namespace tf::train
