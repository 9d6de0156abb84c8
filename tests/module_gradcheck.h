// The Catch2 assertions over gradcheck_module (src/layers/module_gradcheck.h): a whole module, its
// inputs AND every parameter, against central differences in f64, and every one of them reached.
//   test::require_module_gradcheck(mha, [&](const std::vector<Tensor>& in) { return mha(in[0], {}); }, {x});
#pragma once
#include "catch.h"
#include <functional>
#include <string>
#include <vector>

#include "autograd/tape.h"  // the tests that gradcheck modules also drive the tape
#include "layers/module_gradcheck.h"

namespace tf::test {

using tf::gradcheck_module;  // src/layers/module_gradcheck.h: inputs and parameters at once
using tf::unreached;

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
