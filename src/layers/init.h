// Parameter initialisation schemes, chosen by name in configs, drawn from a seeded Rng.
//   xavier_uniform:  U(−a, a),  a = √(6 / (fan_in + fan_out))        (Glorot & Bengio)
//   kaiming_normal:  N(0, 2 / fan_in)                                 (He et al. 2015)
//   normal:          N(0, std²)
//   zeros, ones
#pragma once
#include <span>

#include "autograd/random.h"
#include "autograd/tensor.h"
#include "config/enum_names.h"

namespace tf {

// The scheme's name in configs is its InitKind's name below.
enum class InitKind { xavier_uniform, kaiming_normal, normal, zeros, ones };
inline constexpr EnumName<InitKind> kInitKindNames[] = {{InitKind::xavier_uniform, "xavier_uniform"},
                                                        {InitKind::kaiming_normal, "kaiming_normal"},
                                                        {InitKind::normal, "normal"},
                                                        {InitKind::zeros, "zeros"},
                                                        {InitKind::ones, "ones"}};
inline std::span<const EnumName<InitKind>> enum_names(InitKind) { return kInitKindNames; }

struct InitScheme {
    InitKind kind = InitKind::xavier_uniform;
    double std = 0.02;  // for InitKind::normal
};

// A new tensor of `shape` initialised by `scheme`; fan_in/fan_out are the layer's input/output widths.
Tensor init_tensor(const Shape& shape, int64_t fan_in, int64_t fan_out, const InitScheme& scheme, Rng& rng,
                   DType dtype = DType::f32);

}  // namespace tf
