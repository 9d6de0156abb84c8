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
// byte in it, not UTF-8, longer than kMaxRunNameBytes, or holding a character that would act or
// mislead where the name is shown: a control character (U+0000–U+001F, U+007F, U+0080–U+009F), a
// bidirectional-text control (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), or < > ".
std::string run_name_problem(const std::string& name);

}  // namespace tf::train
