// Gradient stability without the gradient's scale (docs/experiments.md, "Gradient stability").
//
// A raw variance of gradient norms grows with the square of the norms, so two models at different
// losses differ in it for that reason alone. Both measures here divide the scale out:
//
//   noise-to-signal  N = (1/M) Σ_b ‖g_b − ḡ‖² / ‖ḡ‖²,   ḡ = (1/M) Σ_b g_b
//       over M minibatch gradients g_b taken at one set of weights: how far one minibatch's
//       gradient strays from the mean one, in units of the mean one (McCandlish et al. 2018, "An
//       Empirical Model of Large-Batch Training", call B_simple = B·N the simple noise scale).
//   coefficient of variation  CV = sd(‖g_t‖) / mean(‖g_t‖)   over the logged steps t of training.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

// N above. Needs M ≥ 2 gradients of one length; NaN when ḡ = 0 (no direction to be noisy about).
double gradient_noise_to_signal(const std::vector<std::vector<double>>& minibatch_gradients);

// CV above: sample standard deviation over mean; NaN for fewer than 2 values or a zero mean.
double coefficient_of_variation(const std::vector<double>& values);

// The gradient of loss_of_minibatch(b) with respect to every parameter, flattened in parameter
// order (a parameter the loss does not reach contributes zeros), for b = 0 … count − 1. Clears
// the tape and the parameters' gradients before each minibatch and after the last.
std::vector<std::vector<double>> minibatch_gradients(const std::vector<Tensor>& parameters, int64_t count,
                                                     const std::function<Tensor(int64_t)>& loss_of_minibatch);

}  // namespace tf
