// The small f64 recurrent-layer options the recurrent tests share (I = 3, H = 4).
#pragma once
#include "layers/recurrent/recurrent_layer.h"

namespace tf::test {

inline RecurrentOptions small_recurrent_options(int64_t num_layers, bool bidirectional) {
    RecurrentOptions options;
    options.input_size = 3;
    options.hidden_size = 4;
    options.num_layers = num_layers;
    options.bidirectional = bidirectional;
    options.dtype = DType::f64;
    return options;
}

}  // namespace tf::test
