// Bucketed gradient sums, started during the backward pass.
#include "train/gradient_buckets.h"

#include <algorithm>
#include <span>

#include "train/gradient_sum.h"

namespace tf::train {

namespace {

// Small enough that the output layers' bucket starts early in the backward pass, big enough that a
// model of a few MB needs only a handful of sums.
constexpr std::size_t kBucketBytes = 512 * 1024;

}  // namespace

GradientBuckets::GradientBuckets(const std::vector<Tensor>& parameters, distributed::Communicator& ranks)
    : parameters_(parameters), ranks_(ranks) {
    // Backward finishes the last-registered parameters (the output side) first: fill from the end.
    for (std::size_t i = parameters_.size(); i-- > 0;) {
        const Tensor& parameter = parameters_[i];
        const std::size_t bytes = parameter.bytes();
        if (buckets_.empty() || parameters_[buckets_.back().members[0]].dtype() != parameter.dtype() ||
            buckets_.back().bytes + bytes > kBucketBytes)
            buckets_.emplace_back();
        buckets_.back().members.push_back(i);
        buckets_.back().bytes += bytes;
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
    if (parameters_[bucket.members[0]].dtype() == DType::f32) {
        pack_gradients(parameters_, bucket.members, bucket.f32);
        bucket.sum = ranks_.start_all_reduce_sum(std::span<float>(bucket.f32));
    } else {
        pack_gradients(parameters_, bucket.members, bucket.f64);
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
        if (parameters_[bucket.members[0]].dtype() == DType::f32) unpack_gradient_sums(parameters_, bucket.members, bucket.f32);
        else unpack_gradient_sums(parameters_, bucket.members, bucket.f64);
    }
}

}  // namespace tf::train
