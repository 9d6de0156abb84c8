// Time and memory against sequence length (Vaswani et al. 2017 §4; Dao et al. 2022): causal
// self-attention forward + backward as the composed (plain) ops, the tiled (flash) kernel and linear
// attention, next to a tanh RNN of the same width. Plain attention keeps (H, T, T) scores: O(T²)
// memory; the others O(T).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tf::analysis {

struct ScalingOptions {
    int64_t heads = 4, head_dim = 64;  // H, D; the RNN is H·D wide
    int reps = 5;                      // timed calls after one warm-up; the median counts
};

struct ScalingMeasurement {
    std::string variant;  // "rnn", "plain", "tiled" or "linear"
    int64_t T = 0;
    double ms = 0;            // median wall time of one forward + backward
    int64_t peak_bytes = 0;   // tensor bytes allocated at the high-water mark, above what was live before
};

// The variants in plotting order.
const std::vector<std::string>& scaling_variants();

// Batch 1. Attention: Q, K, V (1, H, T, D) given, O = attend(Q, K, V), backward with a fixed random
// dO. RNN: x (1, T, H·D) through one tanh RNN layer of hidden size H·D, backward the same way.
// Inputs and dO exist before the timed calls, so peak_bytes is what the call itself allocates
// (gradients included). Throws ValueError for an unknown variant.
ScalingMeasurement measure_scaling(const std::string& variant, int64_t T, const ScalingOptions& options);

}  // namespace tf::analysis
