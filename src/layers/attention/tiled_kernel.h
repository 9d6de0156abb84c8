// The tile loops of the tiled attention kernel (tiled_kernel.cpp), which the work split
// (tiled_work_split.cpp) hands to threads; what they read and write is in tiled_problem.h. f32 and f64.
#pragma once
#include <cstdint>

#include "layers/attention/tiled_problem.h"

namespace tf::tiled {

// Forward of query rows [i0, i0 + query_tile) of query head h, for `items` batch items from b0:
// writes those rows of O and their logsumexps L (B·H, T).
template <class Real>
void forward_query_tile(const Problem<Real>& p, int64_t b0, int64_t items, int64_t h, int64_t i0, const HeadLayout<Real*>& O,
                        Real* L, Scratch<Real>& scratch);

// Δ_i = Σ_d dO_id·O_id for the T query rows of query head h, for `items` batch items from b0.
template <class Real>
void row_deltas(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, Real* delta);

// Backward of every query tile of query head h against key tile j0, for `items` batch items from
// b0: adds into their rows of dQ, dK and dV.
template <class Real>
void backward_key_tile(const Problem<Real>& p, const Backward<Real>& g, int64_t b0, int64_t items, int64_t h, int64_t j0,
                       const Real* delta, Scratch<Real>& scratch);

}  // namespace tf::tiled
