// The tape's record/backward walk, the grad-mode switch, and broadcast-gradient reduction.
#include "autograd/tape.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <unordered_map>

#include "autograd/error.h"
#include "autograd/kernels/elementwise.h"
#include "autograd/ops.h"

namespace tf {

namespace {
thread_local bool g_grad_enabled = true;
thread_local int g_scope_recorders = 0;   // RecordScopes alive on this thread
thread_local int g_value_recorders = 0;   // RecordValues alive on this thread
}

bool grad_enabled() { return g_grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(g_grad_enabled) { g_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { g_grad_enabled = previous_; }

RecordScopes::RecordScopes() { ++g_scope_recorders; }
RecordScopes::~RecordScopes() { --g_scope_recorders; }

RecordValues::RecordValues() { ++g_value_recorders; }
RecordValues::~RecordValues() { --g_value_recorders; }

Tape& Tape::current() {
    thread_local Tape tape;
    return tape;
}

void Tape::record(const char* op, const std::vector<Tensor>& inputs, Tensor& output, BackwardFn backward) {
    consumed_ = false;
    TapeEntry entry{op, {}, {}, nullptr, output.shape(), output.dtype(), std::move(backward),
                    check_numerics() || g_scope_recorders > 0 ? current_scope() : std::string(), Tensor()};
    for (const Tensor& input : inputs) {
        entry.inputs.push_back(input.requires_grad() ? input.autograd_meta() : nullptr);
        entry.input_shapes.push_back(input.shape());
    }
    if (g_value_recorders > 0) entry.value = output.clone();
    auto meta = output.ensure_autograd_meta();
    meta->requires_grad = true;
    meta->is_leaf = false;
    meta->retain_grad = meta->retain_grad || g_value_recorders > 0;
    entry.output = meta;
    entries_.push_back(std::move(entry));
}

Tensor sum_to_shape(const Tensor& grad, const Shape& shape) {
    if (grad.shape() == shape) return grad;
    const int64_t extra = grad.dim() - static_cast<int64_t>(shape.size());
    if (extra < 0)
        throw ShapeError("backward: gradient " + to_string(grad.shape()) + " has fewer dimensions than its input " +
                         to_string(shape));
    std::vector<int64_t> axes;
    for (int64_t axis = 0; axis < grad.dim(); ++axis) {
        const bool leading = axis < extra;
        if (leading || (shape[axis - extra] == 1 && grad.shape()[axis] != 1)) axes.push_back(axis);
        else if (shape[axis - extra] != grad.shape()[axis])
            throw ShapeError("backward: gradient " + to_string(grad.shape()) + " does not broadcast to input " +
                             to_string(shape));
    }
    return sum(grad, axes, /*keepdim=*/true).view(shape);
}

namespace {
void accumulate(AutogradMeta& meta, const Tensor& grad) {
    // The incoming grad may be shared with another input's grad (add's backward hands dC to both
    // inputs), and a first grad is stored as is, so a stored grad is written into only when no
    // other handle holds its data; otherwise the sum goes to a new tensor (then owned alone).
    // A tensor read by many steps (an RNN's attention keys) so sums in place after its second grad.
    if (!meta.grad) meta.grad = std::make_shared<Tensor>(grad);
    else if (meta.grad->sole_owner()) kernels::add_into(*meta.grad, grad);
    else *meta.grad = add(*meta.grad, grad);
}
}  // namespace

void Tape::backward(const Tensor& loss, const Tensor& seed, const WalkedPast& walked_past) {
    if (!loss.requires_grad())
        throw AutogradError("backward: the loss does not require a gradient (no input of it requires one, or it "
                            "was computed under NoGradGuard)");
    if (seed.defined() && (seed.shape() != loss.shape() || seed.dtype() != loss.dtype()))
        throw AutogradError("backward: seed gradient " + to_string(seed.shape()) + " " + dtype_name(seed.dtype()) +
                            " does not match the output " + to_string(loss.shape()) + " " +
                            dtype_name(loss.dtype()));
    if (!seed.defined() && loss.numel() != 1)
        throw AutogradError("backward: output of shape " + to_string(loss.shape()) +
                            " is not a scalar; pass a seed gradient of the same shape");
    const auto& loss_meta = loss.autograd_meta();
    const auto last = std::find_if(entries_.rbegin(), entries_.rend(),
                                   [&](const TapeEntry& entry) { return entry.output == loss_meta; });
    if (last == entries_.rend() && !loss.is_leaf()) {
        if (consumed_)
            throw AutogradError("backward: called twice; the previous backward() consumed the tape and freed its "
                                "activations. Run the forward pass again");
        throw AutogradError("backward: this output is not on the current tape (recorded on another thread, or "
                            "before tape.clear())");
    }
    accumulate(*loss_meta, seed.defined() ? seed : Tensor::ones(loss.shape(), loss.dtype()));

    NoGradGuard no_grad;  // backward closures compute with ops but must not record
    for (auto entry = last; entry != entries_.rend(); ++entry) {
        if (entry->output->grad) walk(*entry);   // else nothing downstream of this entry reached the loss
        if (walked_past) walked_past(static_cast<std::size_t>(entries_.rend() - entry) - 1);
    }
    entries_.clear();
    consumed_ = true;
}

void Tape::walk(TapeEntry& entry) {
    const Tensor grad_output = *entry.output->grad;
    if (!entry.output->retain_grad) entry.output->grad = nullptr;
    std::vector<bool> needs_grad;
    for (const auto& input : entry.inputs) needs_grad.push_back(input != nullptr);
    const Grads grads = entry.backward(grad_output, needs_grad);
    if (grads.size() != entry.inputs.size())
        throw AutogradError(std::string(entry.op) + ": backward returned " + std::to_string(grads.size()) +
                            " gradients for " + std::to_string(entry.inputs.size()) + " inputs");
    for (std::size_t i = 0; i < grads.size(); ++i) {
        if (!entry.inputs[i]) continue;
        if (!grads[i].defined())
            throw AutogradError(std::string(entry.op) + ": backward gave no gradient for input " + std::to_string(i) +
                                ", which requires one");
        if (check_numerics()) {
            NameScope scope(entry.scope);
            check_finite(grads[i], std::string("the backward of op '") + entry.op + "'", NegativeInfinity::fault);
        }
        accumulate(*entry.inputs[i], sum_to_shape(grads[i], entry.input_shapes[i]));
    }
}

std::vector<std::size_t> Tape::first_uses(const std::vector<Tensor>& leaves) const {
    std::unordered_map<const AutogradMeta*, std::size_t> leaf_of;
    for (std::size_t leaf = 0; leaf < leaves.size(); ++leaf) leaf_of[leaves[leaf].autograd_meta().get()] = leaf;
    std::vector<std::size_t> first(leaves.size(), entries_.size());
    for (std::size_t e = entries_.size(); e-- > 0;)
        for (const auto& input : entries_[e].inputs)
            if (const auto found = leaf_of.find(input.get()); input && found != leaf_of.end()) first[found->second] = e;
    return first;
}

void Tape::clear() {
    entries_.clear();
    consumed_ = false;
}

std::vector<std::string> Tape::op_names() const {
    std::vector<std::string> names;
    for (const TapeEntry& entry : entries_) names.emplace_back(entry.op);
    return names;
}

void Tape::dump(std::ostream& out) const {
    std::size_t total_bytes = 0;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        const TapeEntry& entry = entries_[i];
        std::string inputs;
        for (std::size_t j = 0; j < entry.input_shapes.size(); ++j)
            inputs += (j ? ", " : "") + to_string(entry.input_shapes[j]);
        const std::size_t bytes = static_cast<std::size_t>(numel(entry.output_shape)) * dtype_size(entry.dtype);
        total_bytes += bytes;
        // the op in a column of 22 (the longest name, tiled_cross_attention, and a space)
        out << std::setw(4) << i << "  " << std::left << std::setw(22) << entry.op << std::right << inputs
            << " -> " << to_string(entry.output_shape) << " " << dtype_name(entry.dtype) << "  " << bytes
            << " bytes\n";
    }
    out << entries_.size() << " entries, " << total_bytes << " bytes of outputs\n";
}

}  // namespace tf
