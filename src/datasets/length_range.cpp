// Reading data.min_length and data.max_length (datasets/length_range.h).
#include "datasets/length_range.h"

#include <algorithm>

#include "autograd/error.h"

namespace tf::train {

LengthRange read_length_range(config::JsonReader& reader, int64_t default_max, int64_t upper) {
    LengthRange lengths;
    lengths.min_length = reader.integer("min_length", 1, {.min = 1, .max = upper});
    lengths.max_length = reader.integer("max_length", std::clamp(default_max, lengths.min_length, upper), {.min = 1, .max = upper});
    if (lengths.max_length < lengths.min_length)
        throw ConfigError(reader.path_of("max_length") + ": expected ≥ min_length (" +
                          std::to_string(lengths.min_length) + "), got " + std::to_string(lengths.max_length));
    return lengths;
}

}  // namespace tf::train
