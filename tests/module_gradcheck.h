// gradcheck for a whole module: its inputs AND every parameter, against central differences in f64.
// gradcheck() perturbs its own copies of the inputs, so each copy of a parameter is tied to the
// module's real parameter by an identity op recorded on the tape ("bind_parameter"): the forward
// copies the values in, the backward hands the parameter's gradient back to the copy.
//   const auto result = test::gradcheck_module(mha, [&](const std::vector<Tensor>& in) {
//       return mha(in[0], {}); }, {x});
#pragma once
#include "catch.h"
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/tape.h"
#include "layers/module.h"

namespace tf::test {

struct ModuleGradcheckResult {
    GradcheckResult result;
    std::string worst;  // "input 0" or the worst parameter's dotted name
};

// fn receives the (copied) inputs; it must run `module` and be deterministic (no dropout in training).
// Checks every input and every parameter; the module must hold f64 parameters.
inline ModuleGradcheckResult gradcheck_module(const Module& module, const DifferentiableFn& fn,
                                              const std::vector<Tensor>& inputs, const GradcheckOptions& options = {}) {
    const auto parameters = module.named_parameters();
    const std::size_t input_count = inputs.size();
    std::vector<Tensor> all = inputs;
    for (const auto& [name, parameter] : parameters) all.push_back(parameter.detach().clone());
    for (Tensor& tensor : all) tensor.set_requires_grad();

    const DifferentiableFn bound = [&](const std::vector<Tensor>& leaves) {
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            Tensor parameter = parameters[p].second;
            const Tensor& copy = leaves[input_count + p];
            std::memcpy(parameter.raw_data(), copy.raw_data(), copy.bytes());
            parameter.zero_grad();
            record("bind_parameter", {copy}, parameter, [](const Tensor& d) -> Grads { return {d}; });
        }
        return fn(std::vector<Tensor>(leaves.begin(), leaves.begin() + static_cast<std::ptrdiff_t>(input_count)));
    };
    ModuleGradcheckResult out{gradcheck(bound, all, options), ""};

    // record() made each parameter a non-leaf; give the module its leaves back, values restored.
    for (std::size_t p = 0; p < parameters.size(); ++p) {
        Tensor parameter = parameters[p].second;
        std::memcpy(parameter.raw_data(), all[input_count + p].raw_data(), parameter.bytes());
        parameter.autograd_meta()->is_leaf = true;
        parameter.zero_grad();
    }
    out.worst = out.result.input < input_count ? "input " + std::to_string(out.result.input)
                                               : parameters[out.result.input - input_count].first;
    return out;
}

// The inputs and parameters whose gradient is all zero after one backward with a random positive
// seed: tensors the output does not depend on. Central differences cannot see them (both sides are
// 0), so a layer that dropped a parameter or an input would pass gradcheck without this.
inline std::vector<std::string> unreached(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs) {
    auto all_zero = [](const Tensor& grad) {
        if (!grad.defined()) return true;
        for (double value : grad.to_vector())
            if (value != 0) return false;
        return true;
    };
    Tape::current().clear();
    std::vector<Tensor> leaves;
    for (const Tensor& input : inputs) leaves.push_back(input.detach().clone().set_requires_grad());
    auto parameters = module.named_parameters();
    for (auto& [name, parameter] : parameters) parameter.zero_grad();
    const Tensor out = fn(leaves);
    Rng rng(17);
    Tape::current().backward(out, Tensor::uniform(out.shape(), 0.5, 1.5, rng, out.dtype()));
    std::vector<std::string> missing;
    for (std::size_t i = 0; i < leaves.size(); ++i)
        if (all_zero(leaves[i].grad())) missing.push_back("input " + std::to_string(i));
    for (auto& [name, parameter] : parameters) {
        if (all_zero(parameter.grad())) missing.push_back(name);
        parameter.zero_grad();
    }
    return missing;
}

// The usual assertion: every element compared and within tolerance, naming the worst tensor, and
// every input and parameter reaching the output.
inline void require_module_gradcheck(Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs) {
    const ModuleGradcheckResult checked = gradcheck_module(module, fn, inputs);
    INFO(checked.worst << ": " << checked.result.message);
    CHECK(checked.result.checked > 0);
    CHECK(checked.result.ok);
    CHECK(unreached(module, fn, inputs) == std::vector<std::string>{});
}

// REQUIREs the check to pass for every parameter of `module`, differentiating `forward` (which runs
// the module on fixed inputs).
inline void gradcheck_every_parameter(const Module& module, const std::function<Tensor()>& forward) {
    const DifferentiableFn fn = [&](const std::vector<Tensor>&) { return forward(); };
    const auto checked = gradcheck_module(module, fn, {});
    INFO(checked.worst << ": " << checked.result.message);
    REQUIRE(checked.result.ok);
    CHECK(unreached(module, fn, {}) == std::vector<std::string>{});
}

// REQUIREs the check to pass for every input and every parameter.
inline void gradcheck_inputs_and_parameters(const Module& module, const std::vector<Tensor>& inputs, const DifferentiableFn& fn) {
    const auto checked = gradcheck_module(module, fn, inputs);
    INFO(checked.worst << ": " << checked.result.message);
    REQUIRE(checked.result.ok);
    CHECK(unreached(module, fn, inputs) == std::vector<std::string>{});
}

}  // namespace tf::test
