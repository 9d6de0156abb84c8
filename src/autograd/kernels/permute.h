// Reordering axes: out[i_0, …, i_{r-1}] = x[i_perm... ] — the copy behind transpose and permute.
#pragma once
#include <vector>

#include "autograd/tensor.h"

namespace tf::kernels {

// out.shape[d] = x.shape[perm[d]], and out at multi-index i reads x at the index j with j[perm[d]] = i[d].
Tensor permute_copy(const Tensor& x, const std::vector<int64_t>& perm);

}  // namespace tf::kernels
