// gradcheck: compares the tape's gradients with central finite differences, in f64.
//
// The function's output is reduced with a fixed random weighting, L = Σ r ⊙ f(x), not a plain sum:
// with a plain sum, softmax's true gradient is exactly 0 and a broken backward would pass.
// Public API: check your own op or layer the same way the built-in ones are checked.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

struct GradcheckOptions {
    double eps = 1e-6;   // finite-difference step (PyTorch's double-precision defaults)
    double atol = 1e-5;
    double rtol = 1e-3;
    uint64_t seed = 1234;  // for the output weighting r
};

struct GradcheckResult {
    bool ok = true;
    std::size_t input = 0;       // the input holding the worst element
    int64_t index = -1;          // its flat index (-1 if no element was checked)
    double analytic = 0, numeric = 0;
    double worst_excess = 0;     // |analytic − numeric| − (atol + rtol·|numeric|), ≤ 0 when within tolerance
    int64_t checked = 0;         // number of elements compared
    std::string message;         // a one-line summary, naming the worst element
};

using DifferentiableFn = std::function<Tensor(const std::vector<Tensor>&)>;

// Checks dL/d(input) for every input marked requires_grad (all inputs, if none is marked).
// Clears the current thread's tape first: run it between training steps, not inside one.
// Inputs must be f64. The function must be deterministic (reseed any Rng inside it).
GradcheckResult gradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace tf
