// data.min_length and data.max_length, read together: the lengths a text corpus keeps and a
// synthetic task draws.
#pragma once
#include <cstdint>

#include "config/json_reader.h"

namespace tf::train {

struct LengthRange {
    int64_t min_length = 1, max_length = 10;
};

// Each in [1, upper]; max_length defaults to default_max (kept in [min_length, upper]) and is at
// least min_length. Errors name the JSON path.
LengthRange read_length_range(config::JsonReader& reader, int64_t default_max, int64_t upper);

}  // namespace tf::train
