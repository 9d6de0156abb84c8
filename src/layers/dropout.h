// Dropout module: zeroes each element with probability p while training (scaling the rest by
// 1/(1−p)); the identity in eval mode. Masks come from a shared, seeded Rng the model owns, so a
// run is reproducible and its dropout state can be checkpointed.
#pragma once
#include <memory>

#include "layers/module.h"

namespace tf {

class Dropout : public Module {
public:
    Dropout(double p, std::shared_ptr<Rng> rng);
    Tensor forward(const Tensor& x) const;
    Tensor operator()(const Tensor& x) const { return forward(x); }
    double p() const { return p_; }

private:
    double p_;
    std::shared_ptr<Rng> rng_;
};

}  // namespace tf
