// The gradient's noise-to-signal ratio along training, logged with each line of metrics.jsonl
// (docs/experiments.md, "Gradient stability"). Over the batch gradients g_1 … g_W of the W steps
// between two log lines (taken before clipping),
//     N = (1/W) Σ_t ‖g_t − ḡ‖² / ‖ḡ‖² = ((1/W) Σ_t ‖g_t‖² − ‖ḡ‖²) / ‖ḡ‖²,   ḡ = (1/W) Σ_t g_t,
// the same ratio `compare` measures at one set of weights (analysis/studies/gradient_noise.h), here from
// consecutive steps: the weights move between them, so the gradient's drift within the window
// counts as noise too. It is a curve for comparing models along training — at the same training
// loss, say — not the ratio at one point.
#pragma once
#include <cstdint>
#include <vector>

#include "autograd/tensor.h"

namespace tf::train {

class GradientNoiseWindow {
public:
    // Adds this step's gradient: every parameter's grad, in order (one never reached counts as zeros).
    void add(const std::vector<Tensor>& parameters);
    // N over the steps added since the last take (NaN for fewer than 2, or ḡ = 0); starts a new window.
    double take();

private:
    std::vector<double> sum_;    // Σ_t g_t
    double squares_ = 0;         // Σ_t ‖g_t‖²
    int64_t steps_ = 0;          // W
};

}  // namespace tf::train
