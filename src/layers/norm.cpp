// The norm interface's default post-LN residual.
#include "layers/norm.h"

#include "autograd/ops.h"

namespace tf {

Tensor Norm::of_sum(const Tensor& x, const Tensor& r) const { return forward(x + r); }

}  // namespace tf
