// The tape: reverse-mode automatic differentiation by recording.
//
// Every op whose inputs require a gradient appends one entry to the active (thread-local) tape:
// its name, its inputs, its output and one backward closure that maps the output's gradient to
// the inputs' gradients. The tape is therefore already in topological order, so backward() just
// walks it once from the end, and never needs a graph search.
#pragma once
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "autograd/numerics.h"
#include "autograd/tensor.h"

namespace tf {

using Grads = std::vector<Tensor>;  // one gradient per op input (undefined = no gradient)
// Maps dL/d(output) to dL/d(input_i). needs_grad[i] says whether input i wants one, so an op may
// skip work; the tape ignores gradients for inputs that do not need them.
using BackwardFn = std::function<Grads(const Tensor& grad_output, const std::vector<bool>& needs_grad)>;

struct TapeEntry {
    const char* op;
    std::vector<std::shared_ptr<AutogradMeta>> inputs;  // null for inputs that need no gradient
    std::vector<Shape> input_shapes;
    std::shared_ptr<AutogradMeta> output;
    Shape output_shape;
    DType dtype;
    BackwardFn backward;
    std::string scope;  // the layer that recorded it (kept while numerics are checked or RecordScopes lives)
    Tensor value;       // a copy of the output, kept while RecordValues lives (its grad is then kept too)
};

class Tape {
public:
    // The tape ops record on: one per thread.
    static Tape& current();

    // Appends an entry and marks `output` as a non-leaf requiring a gradient.
    void record(const char* op, const std::vector<Tensor>& inputs, Tensor& output, BackwardFn backward);

    // Told the index of each entry backward() has walked past: that entry and every later one are
    // done, so a leaf whose first use is at that index or after has its final gradient.
    using WalkedPast = std::function<void(std::size_t index)>;

    // Walks the tape in reverse once: seeds dL/dL = 1 (or `seed` for a non-scalar output),
    // calls each entry's backward, sums broadcast gradients back to each input's shape and
    // accumulates them into the inputs' grads. Frees the recorded activations afterwards.
    void backward(const Tensor& loss, const Tensor& seed = Tensor(), const WalkedPast& walked_past = {});

    // For each leaf, the index of the first entry that takes it as an input (size() if none).
    std::vector<std::size_t> first_uses(const std::vector<Tensor>& leaves) const;

    // Drops every entry (and the activations the closures hold) without running backward.
    void clear();

    std::size_t size() const { return entries_.size(); }
    const std::vector<TapeEntry>& entries() const { return entries_; }
    std::vector<std::string> op_names() const;
    // Prints one line per entry: index, op, input shapes -> output shape, output bytes.
    void dump(std::ostream& out) const;

private:
    void walk(TapeEntry& entry);   // one entry of backward(): its inputs' gradients from its output's
    std::vector<TapeEntry> entries_;
    bool consumed_ = false;  // a backward ran and nothing was recorded since
};

// While alive, every entry recorded on this thread keeps the layer that recorded it (TapeEntry::scope),
// as it does while numerics are checked: for `tapeformer tape`, which draws the tape by layer.
class RecordScopes {
public:
    RecordScopes();
    ~RecordScopes();
    RecordScopes(const RecordScopes&) = delete;
    RecordScopes& operator=(const RecordScopes&) = delete;
};

// While alive, every entry recorded on this thread keeps a copy of its output (TapeEntry::value), and
// its output keeps its gradient after backward: for `tapeformer tape --values` on a tiny model.
class RecordValues {
public:
    RecordValues();
    ~RecordValues();
    RecordValues(const RecordValues&) = delete;
    RecordValues& operator=(const RecordValues&) = delete;
};

// Recording is on unless a NoGradGuard is alive on this thread.
bool grad_enabled();

// While alive, ops record nothing (evaluation, optimizer updates, backward closures).
class NoGradGuard {
public:
    NoGradGuard();
    ~NoGradGuard();
    NoGradGuard(const NoGradGuard&) = delete;
    NoGradGuard& operator=(const NoGradGuard&) = delete;

private:
    bool previous_;
};

// Sums `grad` over the dimensions that broadcasting stretched, giving back `shape`.
// The one place broadcast gradients are reduced; ops never do it themselves.
Tensor sum_to_shape(const Tensor& grad, const Shape& shape);

namespace detail {
template <class Inputs, class Backward>
Tensor record_op(const char* op, const Inputs& inputs, Tensor output, Backward&& backward, NegativeInfinity in_output) {
    if (check_numerics()) check_finite(output, std::string("op '") + op + "'", in_output);
    if (!grad_enabled()) return output;
    bool any_requires_grad = false;
    for (const Tensor& input : inputs) any_requires_grad = any_requires_grad || input.requires_grad();
    if (!any_requires_grad) return output;
    std::vector<Tensor> recorded;
    for (const Tensor& input : inputs) recorded.push_back(input);
    if constexpr (std::is_invocable_v<Backward, const Tensor&, const std::vector<bool>&>) {
        Tape::current().record(op, recorded, output, std::forward<Backward>(backward));
    } else {
        Tape::current().record(op, recorded, output,
                               [fn = std::forward<Backward>(backward)](const Tensor& grad_output,
                                                                       const std::vector<bool>&) {
                                   return fn(grad_output);
                               });
    }
    return output;
}
}  // namespace detail

// What every op calls after computing its forward value: records it on the tape if recording is
// on and any input requires a gradient, and returns the output. The closure may take
// (grad_output) or (grad_output, needs_grad). Ops pass their inputs as a braced list of
// references, so one that records nothing (decoding, evaluation) copies no tensor handle and
// builds no vector of them; concat passes its vector. Under --check-numerics the output is checked
// for NaN and ∞; an op that writes −∞ on purpose says so with `in_output` (masked_fill).
template <class Backward>
Tensor record(const char* op, std::initializer_list<std::reference_wrapper<const Tensor>> inputs, Tensor output,
              Backward&& backward, NegativeInfinity in_output = NegativeInfinity::fault) {
    return detail::record_op(op, inputs, std::move(output), std::forward<Backward>(backward), in_output);
}
template <class Backward>
Tensor record(const char* op, const std::vector<Tensor>& inputs, Tensor output, Backward&& backward,
              NegativeInfinity in_output = NegativeInfinity::fault) {
    return detail::record_op(op, inputs, std::move(output), std::forward<Backward>(backward), in_output);
}

}  // namespace tf
