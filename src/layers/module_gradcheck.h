// gradcheck for a whole module: its inputs AND every parameter, against central differences in f64.
// gradcheck() perturbs its own copies of the inputs, so each copy of a parameter is tied to the
// module's real parameter by an identity op recorded on the tape ("bind_parameter"): the forward
// copies the values in, the backward hands the parameter's gradient back to the copy.
//   const auto result = gradcheck_module(mha, [&](const std::vector<Tensor>& in) {
//       return mha(in[0], {}); }, {x});
#pragma once
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "layers/module.h"

namespace tf {

struct ModuleGradcheckResult {
    GradcheckResult result;
    std::string worst;  // "input 0" or the worst parameter's dotted name
};

// fn receives the (copied) inputs; it must run `module` and be deterministic (no dropout in training).
// Checks every input and every parameter at once; the module must hold f64 parameters.
ModuleGradcheckResult gradcheck_module(const Module& module, const DifferentiableFn& fn,
                                       const std::vector<Tensor>& inputs, const GradcheckOptions& options = {});

// The check of one tensor alone: inputs[k], or parameter k − inputs.size() in named_parameters()
// order. A tensor the output does not reach on the tape is an AutogradError (see unreached()).
GradcheckResult gradcheck_module_tensor(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs,
                                        std::size_t k, const GradcheckOptions& options = {});

// The inputs ("input k") and parameters whose gradient is all zero after one backward with a random
// positive seed: tensors the output does not depend on. Central differences cannot see them (both
// sides are 0), so a layer that dropped a parameter or an input would pass gradcheck without this.
std::vector<std::string> unreached(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs);

}  // namespace tf
