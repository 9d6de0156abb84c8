// Data parallelism's one collective: each parameter's gradient summed over the ranks, so every
// rank holds the whole batch's gradient and takes the same optimizer step.
#pragma once
#include <cstddef>
#include <vector>

#include "autograd/tensor.h"
#include "distributed/communicator.h"

namespace tf::train {

// g_p ← Σ_ranks g_p for every parameter p, through one flat buffer per dtype (one all-reduce
// however many parameters), once the backward pass is done: the readable way (the fast one,
// overlapped with the backward pass, is train/gradient_buckets.h). A parameter no rank has a
// gradient for keeps none, as in one process; one that only some ranks reached counts zeros for
// the others. Nothing happens with one rank.
void sum_gradients_over_ranks(const std::vector<Tensor>& parameters, distributed::Communicator& ranks);

// The buffer both ways sum, for the parameters `members` (indices into `parameters`, one dtype T):
// their gradients one after another (zeros where this rank has none), then one flag per member,
// 1 where this rank has its gradient, so that the summed flag counts the ranks that do.
template <typename T>
void pack_gradients(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members, std::vector<T>& packed);
// Each member's gradient set to its sum in `summed` (the packed buffer after the all-reduce),
// where some rank had one.
template <typename T>
void unpack_gradient_sums(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members,
                          const std::vector<T>& summed);

}  // namespace tf::train
