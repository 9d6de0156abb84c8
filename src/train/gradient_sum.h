// Data parallelism's one collective: each parameter's gradient summed over the ranks, so every
// rank holds the whole batch's gradient and takes the same optimizer step.
#pragma once
#include <vector>

#include "autograd/tensor.h"
#include "distributed/communicator.h"

namespace tf::train {

// g_p ← Σ_ranks g_p for every parameter p, through one flat buffer per dtype (one all-reduce
// however many parameters). A parameter no rank has a gradient for keeps none, as in one process;
// one that only some ranks reached counts zeros for the others. Nothing happens with one rank.
void sum_gradients_over_ranks(const std::vector<Tensor>& parameters, distributed::Communicator& ranks);

}  // namespace tf::train
