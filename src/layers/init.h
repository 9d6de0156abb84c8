// Parameter initialisation schemes, chosen by name in configs, drawn from a seeded Rng.
//   xavier_uniform:  U(−a, a),  a = √(6 / (fan_in + fan_out))        (Glorot & Bengio)
//   kaiming_normal:  N(0, 2 / fan_in)                                 (He et al. 2015)
//   normal:          N(0, std²)
//   zeros, ones
#pragma once
#include <string>
#include <vector>

#include "autograd/random.h"
#include "autograd/tensor.h"

namespace tf {

struct InitScheme {
    std::string name = "xavier_uniform";  // one of init_scheme_names()
    double std = 0.02;                    // for "normal"
};

const std::vector<std::string>& init_scheme_names();

// A new tensor of `shape` initialised by `scheme`; fan_in/fan_out are the layer's input/output widths.
Tensor init_tensor(const Shape& shape, int64_t fan_in, int64_t fan_out, const InitScheme& scheme, Rng& rng,
                   DType dtype = DType::f32);

}  // namespace tf
