// Optimizers: SGD (momentum, Nesterov), Adam and AdamW, updating parameters in place from their
// gradients, PyTorch's formulas and order of operations. Each optimizer keeps named state buffers
// ("optimizer.exp_avg.encoder.layers.0.q_proj.weight") so a checkpoint can store and resume them.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/tensor.h"

namespace tf::train {

// What Module::named_parameters() returns: dotted name → parameter (sharing its data).
using NamedParameters = std::vector<std::pair<std::string, Tensor>>;

class Optimizer {
public:
    // A tensor listed twice (a tied weight registered under two names) is kept once, under its
    // first name; two different tensors sharing one storage are an error.
    explicit Optimizer(const NamedParameters& parameters);
    virtual ~Optimizer() = default;
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    // One update of every parameter that has a gradient, at learning rate `lr`; parameters with
    // no gradient are left alone (their state too). Runs under NoGradGuard.
    void step(double lr);
    void zero_grad();  // drops every parameter's gradient (PyTorch's set_to_none)
    int64_t step_count() const { return step_count_; }  // how many step() calls so far
    const NamedParameters& parameters() const { return parameters_; }

    // The state to checkpoint: "optimizer.step_count" (0-d f64) and one entry per state buffer
    // and parameter, "optimizer.<buffer>.<parameter name>". Shares the buffers' data.
    std::map<std::string, Tensor> state() const;
    // Copies a state() back in. The keys must be exactly this optimizer's, with matching shapes
    // and dtypes (so an SGD state cannot be loaded into Adam); errors name the key.
    void load_state(const std::map<std::string, Tensor>& state);

protected:
    // Adds a state buffer per parameter: zeros like the parameter, or a 0-d f64 counter.
    void add_buffer(const std::string& buffer, bool per_parameter_counter = false);
    Tensor& buffer(std::size_t buffer_index, std::size_t parameter_index);
    // Updates parameter `index` (which has gradient `grad`) in place.
    virtual void update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) = 0;
    // The parameters of one step that have a gradient, by index.
    struct Update {
        std::size_t index;
        Tensor parameter, grad;
    };
    // Updates them all; by default one update() each. A rule may instead run them together.
    virtual void update_all(const std::vector<Update>& updates, double lr);

private:
    NamedParameters parameters_;
    std::vector<std::string> buffer_names_;
    std::vector<std::vector<Tensor>> buffers_;  // [buffer][parameter]
    int64_t step_count_ = 0;
};

struct SgdOptions {
    double momentum = 0;      // μ in [0, 1); 0 = plain SGD
    bool nesterov = false;    // needs momentum > 0
    double weight_decay = 0;  // λ ≥ 0, coupled: added to the gradient as λ·p
};

// PyTorch's SGD with dampening 0. State: "momentum_buffer" (only when momentum > 0).
class Sgd : public Optimizer {
public:
    Sgd(const NamedParameters& parameters, const SgdOptions& options);

private:
    void update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) override;
    SgdOptions options_;
};

struct AdamOptions {
    double beta1 = 0.9;       // in [0, 1)
    double beta2 = 0.999;     // in [0, 1)
    double eps = 1e-8;        // > 0
    double weight_decay = 0;  // ≥ 0; Adam adds λ·p to the gradient, AdamW decays p directly
};

struct AdamStep;   // one parameter's scalars for one step (adam.cpp)

// PyTorch's Adam (no amsgrad). State per parameter: "exp_avg" (m), "exp_avg_sq" (v) and "step"
// (its own count, as in PyTorch: bias correction counts only the steps that parameter took).
class Adam : public Optimizer {
public:
    Adam(const NamedParameters& parameters, const AdamOptions& options);

protected:
    // Where the weight decay λ goes: into the gradient, g + λθ (Adam), or decoupled from it,
    // θ ← θ − lr·λθ beside the Adam step (AdamW, Loshchilov & Hutter 2019).
    enum class WeightDecay { in_gradient, decoupled };
    Adam(const NamedParameters& parameters, const AdamOptions& options, WeightDecay weight_decay);

private:
    void update(std::size_t index, Tensor& parameter, const Tensor& grad, double lr) override;
    // Every parameter's update in one pass over one list of element blocks, threaded once per step
    // (one update() a parameter opened a parallel region for each large one).
    void update_all(const std::vector<Update>& updates, double lr) override;
    // Counts one more step of parameter `index` and gives that step's scalars.
    AdamStep next_step(std::size_t index, double lr);
    AdamOptions options_;
    bool decoupled_weight_decay_;
};

// PyTorch's AdamW: p ← p − lr·λ·p first, then the Adam step without L2 on the gradient.
class AdamW : public Adam {
public:
    AdamW(const NamedParameters& parameters, const AdamOptions& options);
};

}  // namespace tf::train
