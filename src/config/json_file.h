// Loading a JSON config file strictly (duplicate keys are errors, parse errors give line and
// column) and applying command-line overrides such as `--set model.heads=8`.
#pragma once
#include <string>
#include <vector>

#include "config/json_reader.h"

namespace tf::config {

// The largest config file read (docs/limits.md): a real config is a few KB.
inline constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

// Parses `path`; throws ConfigError naming the file for a missing file, a file above
// kMaxConfigBytes, a syntax error (with line:column), nesting deeper than kMaxJsonDepth, a number
// beyond double's range, or a key that appears twice in one object (with its JSON path).
Json load_json_file(const std::string& path);
Json parse_json_text(const std::string& text, const std::string& source_name);

// Applies "a.b.c=value": value is read as JSON (8, 0.5, true, "x", [1,2]) or else taken as a
// string. The path must name an object member; missing intermediate objects are errors naming
// the path, so a typo cannot silently create a new section.
void apply_override(Json& config, const std::string& assignment);

}  // namespace tf::config
