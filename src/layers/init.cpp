// The initialisation formulas.
#include "layers/init.h"

#include <cmath>

#include "autograd/error.h"

namespace tf {

const std::vector<std::string>& init_scheme_names() {
    static const std::vector<std::string> names = {"xavier_uniform", "kaiming_normal", "normal", "zeros", "ones"};
    return names;
}

Tensor init_tensor(const Shape& shape, int64_t fan_in, int64_t fan_out, const InitScheme& scheme, Rng& rng, DType dtype) {
    if (scheme.name == "xavier_uniform") {
        const double bound = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
        return Tensor::uniform(shape, -bound, bound, rng, dtype);
    }
    if (scheme.name == "kaiming_normal") return Tensor::normal(shape, 0.0, std::sqrt(2.0 / static_cast<double>(fan_in)), rng, dtype);
    if (scheme.name == "normal") return Tensor::normal(shape, 0.0, scheme.std, rng, dtype);
    if (scheme.name == "zeros") return Tensor::zeros(shape, dtype);
    if (scheme.name == "ones") return Tensor::ones(shape, dtype);
    throw ValueError("init: unknown scheme '" + scheme.name + "'");
}

}  // namespace tf
