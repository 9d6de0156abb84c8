// The initialisation formulas.
#include "layers/init.h"

#include <cmath>

#include "autograd/error.h"

namespace tf {

Tensor init_tensor(const Shape& shape, int64_t fan_in, int64_t fan_out, const InitScheme& scheme, Rng& rng, DType dtype) {
    switch (scheme.kind) {
    case InitKind::xavier_uniform: {
        const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
        return Tensor::uniform(shape, -bound, bound, rng, dtype);
    }
    case InitKind::kaiming_normal: return Tensor::normal(shape, 0.0, std::sqrt(2.0 / static_cast<double>(fan_in)), rng, dtype);
    case InitKind::normal: return Tensor::normal(shape, 0.0, scheme.std, rng, dtype);
    case InitKind::zeros: return Tensor::zeros(shape, dtype);
    case InitKind::ones: return Tensor::ones(shape, dtype);
    }
    throw ValueError("init: unknown scheme " + std::to_string(static_cast<int>(scheme.kind)));
}

}  // namespace tf
