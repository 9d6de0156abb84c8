// Bucketed gradient sums, started during the backward pass.
#include "train/gradient_buckets.h"

#include <algorithm>
#include <span>

namespace tf::train {

namespace {

// Small enough that the output layers' bucket starts early in the backward pass, big enough that a
// model of a few MB needs only a handful of sums.
constexpr std::size_t kBucketBytes = 512 * 1024;

// The gradients of `members` and then their has-a-gradient flags, into `packed`.
template <typename T>
void pack(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members, std::vector<T>& packed) {
    auto at = packed.begin();
    for (const std::size_t i : members) {
        const Tensor grad = parameters[i].grad();
        const auto count = static_cast<std::size_t>(parameters[i].numel());
        if (grad.defined()) std::copy_n(grad.data<T>(), count, at);
        else std::fill_n(at, count, T(0));
        at += static_cast<std::ptrdiff_t>(count);
    }
    for (const std::size_t i : members) *at++ = parameters[i].grad().defined() ? T(1) : T(0);
}

// Each member's summed gradient out of `packed`, where some rank had one.
template <typename T>
void unpack(const std::vector<Tensor>& parameters, const std::vector<std::size_t>& members, const std::vector<T>& packed,
            std::size_t numbers) {
    std::size_t offset = 0;
    for (std::size_t m = 0; m < members.size(); ++m) {
        const Tensor& parameter = parameters[members[m]];
        const auto count = static_cast<std::size_t>(parameter.numel());
        if (packed[numbers + m] > T(0)) {
            Tensor summed(parameter.shape(), parameter.dtype());
            std::copy_n(packed.data() + offset, count, summed.data<T>());
            Tensor(parameter).set_grad(summed);
        }
        offset += count;
    }
}

}  // namespace

GradientBuckets::GradientBuckets(const std::vector<Tensor>& parameters, distributed::Communicator& ranks)
    : parameters_(parameters), ranks_(ranks) {
    // Backward finishes the last-registered parameters (the output side) first: fill from the end.
    for (std::size_t i = parameters_.size(); i-- > 0;) {
        const Tensor& parameter = parameters_[i];
        const std::size_t bytes = static_cast<std::size_t>(parameter.numel()) * dtype_size(parameter.dtype());
        const bool same_dtype = !buckets_.empty() && parameters_[buckets_.back().members[0]].dtype() == parameter.dtype();
        const std::size_t bucket_bytes =
            buckets_.empty() ? 0 : buckets_.back().numbers * dtype_size(parameters_[buckets_.back().members[0]].dtype());
        if (!same_dtype || bucket_bytes + bytes > kBucketBytes) buckets_.emplace_back();
        Bucket& bucket = buckets_.back();
        bucket.members.push_back(i);
        bucket.numbers += static_cast<std::size_t>(parameter.numel());
    }
    for (Bucket& bucket : buckets_) {
        const std::size_t size = bucket.numbers + bucket.members.size();
        if (parameters_[bucket.members[0]].dtype() == DType::f32) bucket.f32.resize(size);
        else bucket.f64.resize(size);
    }
}

void GradientBuckets::watch(const Tape& tape) {
    const std::vector<std::size_t> first_use = tape.first_uses(parameters_);
    for (Bucket& bucket : buckets_) {
        bucket.final_from = tape.size();
        for (const std::size_t i : bucket.members) bucket.final_from = std::min(bucket.final_from, first_use[i]);
    }
    started_ = finished_ = 0;
}

void GradientBuckets::start(Bucket& bucket) {
    if (!bucket.f32.empty()) {
        pack(parameters_, bucket.members, bucket.f32);
        bucket.sum = ranks_.start_all_reduce_sum(std::span<float>(bucket.f32));
    } else {
        pack(parameters_, bucket.members, bucket.f64);
        bucket.sum = ranks_.start_all_reduce_sum(std::span<double>(bucket.f64));
    }
}

void GradientBuckets::walked_past(std::size_t index) {
    while (started_ < buckets_.size() && index <= buckets_[started_].final_from) start(buckets_[started_++]);
    // Testing one sum lets MPI move all of them on.
    while (finished_ < started_ && buckets_[finished_].sum->done()) ++finished_;
}

void GradientBuckets::finish() {
    while (started_ < buckets_.size()) start(buckets_[started_++]);
    for (Bucket& bucket : buckets_) {
        bucket.sum->wait();
        if (!bucket.f32.empty()) unpack(parameters_, bucket.members, bucket.f32, bucket.numbers);
        else unpack(parameters_, bucket.members, bucket.f64, bucket.numbers);
    }
}

}  // namespace tf::train
