// Central differences: dL/dx_i ≈ (L(x + h·e_i) − L(x − h·e_i)) / 2h, compared element by element
// with what one backward() through the tape gives.
#include "autograd/gradcheck.h"

#include <cmath>
#include <sstream>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf {

namespace {

// L = Σ r ⊙ f(x) as a plain number, with nothing recorded.
double weighted_output(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, const Tensor& weights) {
    NoGradGuard no_grad;
    const Tensor out = fn(inputs);
    const double* values = out.data<double>();
    const double* r = weights.data<double>();
    double total = 0;
    for (int64_t i = 0; i < out.numel(); ++i) total += values[i] * r[i];
    return total;
}

}  // namespace

GradcheckResult gradcheck(const DifferentiableFn& fn, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
    bool any_marked = false;
    for (const Tensor& input : inputs) {
        check_dtype(input, DType::f64, "gradcheck");
        any_marked = any_marked || input.requires_grad();
    }
    // Fresh leaves, so the caller's tensors and their grads are left alone.
    std::vector<Tensor> leaves;
    std::vector<bool> checked_input;
    for (const Tensor& input : inputs) {
        leaves.push_back(input.clone());
        checked_input.push_back(!any_marked || input.requires_grad());
        if (checked_input.back()) leaves.back().set_requires_grad(true);
    }

    Tape& tape = Tape::current();
    tape.clear();
    const Tensor out = fn(leaves);
    check_dtype(out, DType::f64, "gradcheck (output)");
    Rng rng(options.seed);
    const Tensor weights = Tensor::uniform(out.shape(), 0.5, 1.5, rng, DType::f64);
    if (!out.requires_grad()) throw AutogradError("gradcheck: the function's output does not depend on any checked input");
    tape.backward(out, weights);

    GradcheckResult result;
    result.worst_excess = -INFINITY;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
        if (!checked_input[k]) continue;
        const Tensor analytic = leaves[k].grad().defined() ? leaves[k].grad() : Tensor::zeros(leaves[k].shape(), DType::f64);
        std::vector<Tensor> probe;
        for (const Tensor& leaf : leaves) probe.push_back(leaf.detach().clone());
        double* x = probe[k].data<double>();
        for (int64_t i = 0; i < probe[k].numel(); ++i) {
            const double saved = x[i];
            x[i] = saved + options.eps;
            const double plus = weighted_output(fn, probe, weights);
            x[i] = saved - options.eps;
            const double minus = weighted_output(fn, probe, weights);
            x[i] = saved;
            const double numeric = (plus - minus) / (2 * options.eps);
            const double a = analytic.data<double>()[i];
            const double excess = std::abs(a - numeric) - (options.atol + options.rtol * std::abs(numeric));
            ++result.checked;
            // A NaN on either side (a non-finite function near x, or a broken backward) fails.
            if (excess > result.worst_excess || std::isnan(excess)) {
                result.worst_excess = std::isnan(excess) ? INFINITY : excess;
                result.input = k;
                result.index = i;
                result.analytic = a;
                result.numeric = numeric;
            }
        }
    }
    result.ok = result.worst_excess <= 0;
    std::ostringstream text;
    text.precision(8);
    if (result.checked == 0) text << "no elements to check";
    else text << (result.ok ? "ok" : "MISMATCH") << ": worst at input " << result.input << " element " << result.index
              << ": analytic " << result.analytic << ", numeric " << result.numeric << ", tolerance "
              << options.atol + options.rtol * std::abs(result.numeric) << " (" << result.checked << " elements checked)";
    result.message = text.str();
    return result;
}

}  // namespace tf
