// Parameter bookkeeping: dotted names, state dicts, train/eval mode.
#include "layers/module.h"

#include <cstring>

#include "autograd/error.h"

namespace tf {

Tensor Module::register_parameter(const std::string& name, Tensor value) {
    for (const auto& [existing, unused] : parameters_)
        if (existing == name) throw ValueError("register_parameter: '" + name + "' is registered twice");
    value.set_requires_grad(true);
    parameters_.emplace_back(name, value);
    return value;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
    for (const auto& [existing, unused] : children_)
        if (existing == name) throw ValueError("register_module: '" + name + "' is registered twice");
    child->train(training_);
    children_.emplace_back(name, std::move(child));
}

void Module::collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const {
    for (const auto& [name, tensor] : parameters_) out.emplace_back(prefix + name, tensor);
    for (const auto& [name, child] : children_) child->collect(prefix + name + ".", out);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters() const {
    std::vector<std::pair<std::string, Tensor>> out;
    collect("", out);
    return out;
}

std::vector<Tensor> Module::parameters() const {
    std::vector<Tensor> out;
    for (auto& [name, tensor] : named_parameters()) out.push_back(tensor);
    return out;
}

int64_t Module::parameter_count() const {
    int64_t count = 0;
    for (const auto& [name, tensor] : named_parameters()) count += tensor.numel();
    return count;
}

std::map<std::string, Tensor> Module::state_dict() const {
    std::map<std::string, Tensor> state;
    for (const auto& [name, tensor] : named_parameters()) state.emplace(name, tensor);
    return state;
}

void Module::load_state_dict(const std::map<std::string, Tensor>& state) {
    const auto own = named_parameters();
    for (const auto& [name, unused] : state) {
        bool known = false;
        for (const auto& [own_name, tensor] : own) known = known || own_name == name;
        if (!known) throw ValueError("load_state_dict: unknown parameter '" + name + "'");
    }
    for (auto [name, tensor] : own) {
        const auto found = state.find(name);
        if (found == state.end()) throw ValueError("load_state_dict: missing parameter '" + name + "'");
        const Tensor& source = found->second;
        if (source.shape() != tensor.shape())
            throw ShapeError("load_state_dict: parameter '" + name + "' has shape " + to_string(tensor.shape()) +
                             ", the state has " + to_string(source.shape()));
        const Tensor converted = source.to(tensor.dtype());
        std::memcpy(tensor.raw_data(), converted.raw_data(), tensor.bytes());
    }
}

void Module::train(bool on) {
    training_ = on;
    for (auto& [name, child] : children_) child->train(on);
}

void Module::assign_names(const std::string& prefix) {
    name_ = prefix;
    for (auto& [child_name, child] : children_) child->assign_names(prefix.empty() ? child_name : prefix + "." + child_name);
}

void Module::zero_grad() {
    for (auto [name, tensor] : named_parameters()) tensor.zero_grad();
}

}  // namespace tf
