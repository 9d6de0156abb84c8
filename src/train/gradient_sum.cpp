// Packing gradients into a flat buffer, one all-reduce, unpacking.
#include "train/gradient_sum.h"

#include <algorithm>
#include <span>

namespace tf::train {

namespace {

// The parameters of one dtype T: their gradients (zeros where a rank has none) summed in one buffer.
// `reached`: per parameter, how many ranks had a gradient for it.
template <typename T>
void sum_in_one_buffer(const std::vector<Tensor>& parameters, const std::vector<double>& reached, DType dtype,
                       distributed::Communicator& ranks) {
    std::vector<T> buffer;
    for (const Tensor& parameter : parameters) {
        if (parameter.dtype() != dtype) continue;
        const Tensor grad = parameter.grad();
        if (grad.defined()) buffer.insert(buffer.end(), grad.data<T>(), grad.data<T>() + grad.numel());
        else buffer.resize(buffer.size() + static_cast<std::size_t>(parameter.numel()), T(0));
    }
    if (buffer.empty()) return;
    ranks.all_reduce_sum(std::span<T>(buffer));
    std::size_t offset = 0;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const Tensor& parameter = parameters[i];
        if (parameter.dtype() != dtype) continue;
        const auto count = static_cast<std::size_t>(parameter.numel());
        if (reached[i] > 0) {
            Tensor summed(parameter.shape(), dtype);
            std::copy_n(buffer.data() + offset, count, summed.data<T>());
            Tensor(parameter).set_grad(summed);
        }
        offset += count;
    }
}

}  // namespace

void sum_gradients_over_ranks(const std::vector<Tensor>& parameters, distributed::Communicator& ranks) {
    if (ranks.size() == 1) return;
    std::vector<double> reached(parameters.size());
    for (std::size_t i = 0; i < parameters.size(); ++i) reached[i] = parameters[i].grad().defined() ? 1 : 0;
    ranks.all_reduce_sum(std::span<double>(reached));
    sum_in_one_buffer<float>(parameters, reached, DType::f32, ranks);
    sum_in_one_buffer<double>(parameters, reached, DType::f64, ranks);
}

}  // namespace tf::train
