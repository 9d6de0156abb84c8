// How the tiled attention kernel's work is spread over threads (tiled_work_split.cpp): the forward
// and backward over every tile of every batch item and head, and each thread's tile buffers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "autograd/kernels/bfloat16.h"
#include "layers/attention/tiled_kernel.h"
#include "layers/attention/tiled_layout.h"

namespace tf::tiled {

// Per-thread buffers of one tile: O(items · query_tile · key_tile), independent of T and S, sized
// for the largest tile, rows = min(query_tile, T) by cols = min(key_tile, S).
template <class Real>
struct Scratch {
    std::vector<Real> S, dP;     // (items, rows, cols): scores, then weights P / dS in place
    std::vector<Real> m, ell;    // (items, rows): running max and running sum of the online softmax
    std::vector<kernels::bfloat16_bits> P16, dS16;   // P and dS rounded as they are made (bf16 only)
    Scratch(const Problem<Real>& p, int64_t items)
        : S(items * std::min(p.query_tile, p.T) * std::min(p.key_tile, p.S)), dP(S.size()), m(items * std::min(p.query_tile, p.T)),
          ell(m.size()), P16(p.bf16 ? S.size() : 0), dS16(p.bf16 ? S.size() : 0) {}
};

// O (its heads where the layout says) and L (B, H, T) of `batch` items.
template <class Real>
void forward(const Problem<Real>& p, int64_t batch, const HeadLayout<Real*>& O, Real* L);

// g.dQ, g.dK and g.dV of `batch` items, every value written (no zeroing needed beforehand).
template <class Real>
void backward(const Problem<Real>& p, const Backward<Real>& g, int64_t batch);

}  // namespace tf::tiled
