// The optimizer's bookkeeping shared by every update rule: the parameter list, the named state
// buffers, the step counter, and saving/restoring that state for checkpoints.
#include "train/optimizer.h"

#include <cmath>
#include <cstring>

#include "autograd/error.h"
#include "autograd/tape.h"

namespace tf::train {

namespace {
const std::string kPrefix = "optimizer.";
const std::string kStepCountKey = "optimizer.step_count";
}  // namespace

Optimizer::Optimizer(const NamedParameters& parameters) {
    for (const auto& [name, tensor] : parameters) {
        if (!tensor.defined()) throw ValueError("optimizer: parameter '" + name + "' is an undefined tensor");
        bool duplicate = false;
        for (const auto& [kept_name, kept] : parameters_) {
            if (!kept.shares_storage(tensor)) continue;
            if (kept.autograd_meta() != tensor.autograd_meta() || kept.shape() != tensor.shape())
                throw ValueError("optimizer: parameters '" + kept_name + "' and '" + name +
                                 "' are different tensors sharing one storage; each would be updated twice");
            duplicate = true;  // a tied weight listed under a second name: update it once
        }
        if (!duplicate) parameters_.emplace_back(name, tensor);
    }
}

void Optimizer::add_buffer(const std::string& buffer, bool per_parameter_counter) {
    std::vector<Tensor> tensors;
    for (const auto& [name, parameter] : parameters_)
        tensors.push_back(per_parameter_counter ? Tensor::zeros({}, DType::f64)
                                                : Tensor::zeros(parameter.shape(), parameter.dtype()));
    buffer_names_.push_back(buffer);
    buffers_.push_back(std::move(tensors));
}

Tensor& Optimizer::buffer(std::size_t buffer_index, std::size_t parameter_index) {
    return buffers_[buffer_index][parameter_index];
}

void Optimizer::step(double lr) {
    if (!(lr >= 0 && std::isfinite(lr))) throw ValueError("optimizer step: learning rate must be finite and ≥ 0, got " + std::to_string(lr));
    NoGradGuard no_grad;
    std::vector<Update> updates;
    for (std::size_t i = 0; i < parameters_.size(); ++i) {
        const Tensor grad = parameters_[i].second.grad();
        if (grad.defined()) updates.push_back({i, parameters_[i].second, grad});
    }
    update_all(updates, lr);
    ++step_count_;
}

void Optimizer::update_all(const std::vector<Update>& updates, double lr) {
    for (const Update& u : updates) {
        Tensor parameter = u.parameter;   // a handle sharing the parameter's data
        update(u.index, parameter, u.grad, lr);
    }
}

void Optimizer::zero_grad() {
    for (auto& [name, parameter] : parameters_) parameter.zero_grad();
}

std::map<std::string, Tensor> Optimizer::state() const {
    std::map<std::string, Tensor> state;
    state.emplace(kStepCountKey, Tensor::scalar(static_cast<double>(step_count_), DType::f64));
    for (std::size_t b = 0; b < buffer_names_.size(); ++b)
        for (std::size_t i = 0; i < parameters_.size(); ++i)
            state.emplace(kPrefix + buffer_names_[b] + "." + parameters_[i].first, buffers_[b][i]);
    return state;
}

void Optimizer::load_state(const std::map<std::string, Tensor>& saved) {
    const std::map<std::string, Tensor> own = state();
    for (const auto& [key, unused] : saved)
        if (!own.count(key)) throw ValueError("optimizer load_state: unknown key '" + key + "'");
    for (const auto& [key, target] : own) {
        const auto found = saved.find(key);
        if (found == saved.end()) throw ValueError("optimizer load_state: missing key '" + key + "'");
        const Tensor& source = found->second;
        if (source.shape() != target.shape() || source.dtype() != target.dtype())
            throw ValueError("optimizer load_state: '" + key + "' is " + to_string(source.shape()) + " " +
                             dtype_name(source.dtype()) + ", expected " + to_string(target.shape()) + " " +
                             dtype_name(target.dtype()));
    }
    const double count = saved.at(kStepCountKey).item();
    // Checked within 2^53 (every count there is exact in a double) before the cast, which past
    // INT64_MAX would be undefined.
    if (!(count >= 0 && count <= 9007199254740992.0) || count != static_cast<double>(static_cast<int64_t>(count)))
        throw ValueError("optimizer load_state: '" + kStepCountKey + "' is not a count: " + std::to_string(count));
    // Everything checked: now copy, so a failed load changes nothing.
    for (auto [key, target] : own)  // target: a handle sharing the buffer's data
        if (key != kStepCountKey) std::memcpy(target.raw_data(), saved.at(key).raw_data(), target.bytes());
    step_count_ = static_cast<int64_t>(count);
}

}  // namespace tf::train
