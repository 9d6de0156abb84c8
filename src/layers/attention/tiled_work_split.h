// How the tiled attention kernel's work is spread over threads (tiled_work_split.cpp): the forward
// and backward over every tile of every batch item and head, and each thread's tile buffers.
#pragma once
#include <cstdint>
#include <vector>

#include "layers/attention/tiled_problem.h"
#include "layers/attention/tiled_layout.h"

namespace tf::tiled {

// O (its heads where the layout says) and L (B, H, T) of `batch` items.
template <class Real>
void forward(const Problem<Real>& p, int64_t batch, const HeadLayout<Real*>& O, Real* L);

// g.dQ, g.dK and g.dV of `batch` items, every value written (no zeroing needed beforehand).
template <class Real>
void backward(const Problem<Real>& p, const Backward<Real>& g, int64_t batch);

}  // namespace tf::tiled
