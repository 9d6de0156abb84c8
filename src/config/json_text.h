// Reading a JSON text that came from outside the program (a config, a data line, a checkpoint
// header) within stated bounds, so a hostile file gets an error message, not a stack overflow.
// The bounds are listed in docs/limits.md.
#pragma once
#include <string>

#include "config/json_reader.h"

namespace tf::config {

// Deepest nesting of objects and arrays accepted. tapeformer's own files nest 4 levels; 64 leaves
// room for any hand-written config while every later walk over the value stays shallow.
inline constexpr int kMaxJsonDepth = 64;

// What can be wrong with a JSON text.
enum class JsonProblem { none, syntax, too_deep, number_out_of_range, duplicate_key };

// The outcome of reading a JSON text: the value, or what is wrong with the text.
struct JsonParse {
    Json value;
    JsonProblem kind = JsonProblem::none;
    // Empty when the text was read. Otherwise the problem, starting with where it is:
    // "3:14: invalid JSON (...)", "model.heads: duplicate key", "nested deeper than 64 levels".
    std::string problem;

    bool ok() const { return kind == JsonProblem::none; }
};

// Reads `text` as one JSON value. Refuses (in `problem`, never by throwing): invalid JSON (with
// line:column), nesting deeper than kMaxJsonDepth, a number beyond double's range (1e999), and a
// key that appears twice in one object (nlohmann would silently keep the last).
JsonParse parse_json_bounded(const std::string& text);

}  // namespace tf::config
