// Module: a layer with named parameters and named child modules. Names join with dots
// ("encoder.layers.0.self_attn.q_proj.weight"), so a model's state is a map name → tensor that a
// checkpoint stores and load_state_dict() restores, shape-checked.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/tensor.h"

namespace tf {

class Module {
public:
    virtual ~Module() = default;
    Module() = default;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    // Every parameter of this module and its children, depth-first in registration order.
    std::vector<std::pair<std::string, Tensor>> named_parameters() const;
    std::vector<Tensor> parameters() const;
    int64_t parameter_count() const;  // number of scalars

    std::map<std::string, Tensor> state_dict() const;  // name → parameter (sharing its data)
    // Copies each tensor into the parameter of that name. Every parameter must be present with
    // its exact shape and no unknown name may appear; errors name the offending parameter.
    void load_state_dict(const std::map<std::string, Tensor>& state);

    void train(bool on = true);  // this module and all children
    void eval() { train(false); }
    bool training() const { return training_; }
    void zero_grad();

    // Gives this module and every descendant its full dotted name ("decoder.layers.1.cross_attn"),
    // used in error messages; call once on the root after building.
    void assign_names(const std::string& prefix = "");
    const std::string& name() const { return name_; }

    // Children by name, for analysis tools that walk a model.
    const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& children() const { return children_; }

protected:
    // Registers a trainable tensor (marks it requires_grad) and returns the handle to keep.
    Tensor register_parameter(const std::string& name, Tensor value);
    template <class M>
    std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> child) {
        add_child(name, child);
        return child;
    }

private:
    void add_child(const std::string& name, std::shared_ptr<Module> child);
    void collect(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const;

    std::vector<std::pair<std::string, Tensor>> parameters_;
    std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
    bool training_ = true;
    std::string name_;
};

}  // namespace tf
