// Binding a module's parameters to gradcheck's copies: identity on the forward, the parameter's
// gradient handed back to its copy on the backward.
#include "layers/module_gradcheck.h"

#include <cstring>

#include "autograd/tape.h"

namespace tf {

namespace {

using NamedParameters = std::vector<std::pair<std::string, Tensor>>;

// record() makes each bound parameter a non-leaf; this gives the module its leaves back, with the
// values they had before the check, however the check ends.
class RestoreParameters {
public:
    RestoreParameters(const NamedParameters& parameters, const std::vector<Tensor>& saved, std::size_t first)
        : parameters_(parameters), saved_(saved), first_(first) {}
    ~RestoreParameters() {
        for (std::size_t p = 0; p < parameters_.size(); ++p) {
            Tensor parameter = parameters_[p].second;
            std::memcpy(parameter.raw_data(), saved_[first_ + p].raw_data(), parameter.bytes());
            parameter.autograd_meta()->is_leaf = true;
            parameter.zero_grad();
        }
    }
    RestoreParameters(const RestoreParameters&) = delete;
    RestoreParameters& operator=(const RestoreParameters&) = delete;

private:
    const NamedParameters& parameters_;
    const std::vector<Tensor>& saved_;
    std::size_t first_;
};

// gradcheck over inputs ++ copies of the parameters, checking the tensors marked in `checked`.
GradcheckResult gradcheck_bound(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs,
                                const std::vector<bool>& checked, const GradcheckOptions& options) {
    const NamedParameters parameters = module.named_parameters();
    const std::size_t input_count = inputs.size();
    std::vector<Tensor> all;
    for (const Tensor& input : inputs) all.push_back(input.detach().clone());
    for (const auto& named : parameters) all.push_back(named.second.detach().clone());
    for (std::size_t k = 0; k < all.size(); ++k) all[k].set_requires_grad(checked[k]);

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
    const RestoreParameters restore(parameters, all, input_count);
    return gradcheck(bound, all, options);
}

}  // namespace

ModuleGradcheckResult gradcheck_module(const Module& module, const DifferentiableFn& fn,
                                       const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
    const auto parameters = module.named_parameters();
    const std::vector<bool> every_tensor(inputs.size() + parameters.size(), true);
    ModuleGradcheckResult out{gradcheck_bound(module, fn, inputs, every_tensor, options), ""};
    out.worst = out.result.input < inputs.size() ? "input " + std::to_string(out.result.input)
                                                 : parameters[out.result.input - inputs.size()].first;
    return out;
}

GradcheckResult gradcheck_module_tensor(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs,
                                        std::size_t k, const GradcheckOptions& options) {
    std::vector<bool> only_k(inputs.size() + module.named_parameters().size(), false);
    only_k.at(k) = true;
    return gradcheck_bound(module, fn, inputs, only_k, options);
}

std::vector<std::string> unreached(const Module& module, const DifferentiableFn& fn, const std::vector<Tensor>& inputs) {
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

}  // namespace tf
