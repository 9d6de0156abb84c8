// Packing gradients into a flat buffer, one all-reduce, unpacking.
#include "train/gradient_sum.h"

#include <algorithm>
#include <span>

namespace tf::train {

template <typename T>
void pack_gradients(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members, std::vector<T>& packed) {
    std::size_t numbers = 0;
    for (const std::size_t i : members) numbers += static_cast<std::size_t>(parameters[i].numel());
    packed.resize(numbers + members.size());
    auto at = packed.begin();
    for (const std::size_t i : members) {
        const Tensor grad = parameters[i].grad();
        const auto count = static_cast<std::ptrdiff_t>(parameters[i].numel());
        if (grad.defined()) std::copy_n(grad.data<T>(), count, at);
        else std::fill_n(at, count, T(0));
        at += count;
    }
    for (const std::size_t i : members) *at++ = parameters[i].grad().defined() ? T(1) : T(0);
}

template <typename T>
void unpack_gradient_sums(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members,
                          const std::vector<T>& summed) {
    const std::size_t flags = summed.size() - members.size();
    std::size_t offset = 0;
    for (std::size_t m = 0; m < members.size(); ++m) {
        const Tensor& parameter = parameters[members[m]];
        const auto count = static_cast<std::size_t>(parameter.numel());
        if (summed[flags + m] > T(0)) {
            Tensor sum(parameter.shape(), parameter.dtype());
            std::copy_n(summed.data() + offset, count, sum.data<T>());
            Tensor(parameter).set_grad(sum);
        }
        offset += count;
    }
}

template void pack_gradients<float>(const std::vector<Tensor>&, const std::vector<std::size_t>&, std::vector<float>&);
template void pack_gradients<double>(const std::vector<Tensor>&, const std::vector<std::size_t>&, std::vector<double>&);
template void unpack_gradient_sums<float>(const std::vector<Tensor>&, const std::vector<std::size_t>&, const std::vector<float>&);
template void unpack_gradient_sums<double>(const std::vector<Tensor>&, const std::vector<std::size_t>&,
                                           const std::vector<double>&);

namespace {

// Every parameter of dtype T in one buffer, summed by one all-reduce.
template <typename T>
void sum_in_one_buffer(const std::vector<Tensor>& parameters, DType dtype, distributed::Communicator& ranks) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < parameters.size(); ++i)
        if (parameters[i].dtype() == dtype) members.push_back(i);
    if (members.empty()) return;
    std::vector<T> buffer;
    pack_gradients(parameters, members, buffer);
    ranks.all_reduce_sum(std::span<T>(buffer));
    unpack_gradient_sums(parameters, members, buffer);
}

}  // namespace

void sum_gradients_over_ranks(const std::vector<Tensor>& parameters, distributed::Communicator& ranks) {
    if (ranks.size() == 1) return;
    sum_in_one_buffer<float>(parameters, DType::f32, ranks);
    sum_in_one_buffer<double>(parameters, DType::f64, ranks);
}

}  // namespace tf::train
