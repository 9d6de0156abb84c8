// Dropout module.
#include "layers/dropout.h"

#include "autograd/error.h"
#include "autograd/ops.h"

namespace tf {

Dropout::Dropout(double p, std::shared_ptr<Rng> rng) : p_(p), rng_(std::move(rng)) {
    if (!(p >= 0.0 && p < 1.0)) throw ValueError("Dropout: probability " + std::to_string(p) + " is not in [0, 1)");
    if (!rng_ && p > 0.0) throw ValueError("Dropout: needs an Rng when p > 0");
}

Tensor Dropout::forward(const Tensor& x) const {
    if (p_ == 0.0 || !training()) return x;
    return dropout(x, p_, *rng_, true);
}

}  // namespace tf
