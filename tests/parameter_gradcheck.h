// Gradchecking a Module w.r.t. each of its parameters with the core gradcheck(). For a parameter,
// the probe value gradcheck perturbs is copied into the parameter's storage before the forward, and a
// one-entry "parameter" bridge on the tape hands the parameter's gradient back to the probe leaf.
#pragma once
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/tape.h"
#include "layers/module.h"

namespace tf::test {

// REQUIREs gradcheck to pass for every parameter of `module` (f64), differentiating `forward`,
// which runs the module on fixed inputs and returns an f64 tensor. Each parameter is restored after.
inline void gradcheck_every_parameter(const Module& module, const std::function<Tensor()>& forward) {
    for (auto [name, parameter] : module.named_parameters()) {
        INFO("parameter " << name);
        const Tensor saved = parameter.clone();
        parameter.zero_grad();  // a gradient left by an earlier backward would add to the bridge's
        const auto through_parameter = [&parameter, &forward](const std::vector<Tensor>& probe) {
            std::memcpy(parameter.raw_data(), probe[0].raw_data(), parameter.bytes());
            // parameter = probe on the tape: recorded first, so walked last, after every use of the
            // parameter has added its share to the parameter's gradient.
            record("parameter", {probe[0]}, parameter, [](const Tensor& grad) -> Grads { return {grad}; });
            return forward();
        };
        const GradcheckResult result = gradcheck(through_parameter, {saved});
        std::memcpy(parameter.raw_data(), saved.raw_data(), parameter.bytes());
        parameter.autograd_meta()->is_leaf = true;  // the bridge had made it an op output
        parameter.zero_grad();
        INFO(result.message);
        REQUIRE(result.ok);
    }
}

// gradcheck w.r.t. every input (marked requires_grad, or all), then every parameter of `module`.
inline void gradcheck_inputs_and_parameters(const Module& module, const std::vector<Tensor>& inputs,
                                            const DifferentiableFn& fn) {
    {
        INFO("inputs");
        const GradcheckResult result = gradcheck(fn, inputs);
        INFO(result.message);
        REQUIRE(result.ok);
    }
    gradcheck_every_parameter(module, [&] { return fn(inputs); });
}

}  // namespace tf::test
