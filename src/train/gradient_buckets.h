// The gradients' all-reduce overlapped with the backward pass: the parameters are cut into buckets
// of about 512 KiB, in the order backward finishes them (the output layers first), and a bucket's
// sum starts as soon as all of its gradients are final, while backward computes the earlier
// layers' gradients. The same sums as sum_gradients_over_ranks (train/gradient_sum.h), which stays
// as the readable way; a test holds the two equal. docs/distributed.md
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "autograd/tape.h"
#include "autograd/tensor.h"
#include "distributed/communicator.h"

namespace tf::train {

class GradientBuckets {
public:
    GradientBuckets(const std::vector<Tensor>& parameters, distributed::Communicator& ranks);

    // Before the backward pass that completes the gradients: where on `tape` each parameter is
    // first used (its gradient is final once backward has walked past that entry).
    void watch(const Tape& tape);
    // Tape::backward's WalkedPast: starts, in bucket order (the same on every rank, as MPI needs),
    // each bucket whose gradients are all final, and moves the started sums on.
    void walked_past(std::size_t index);
    // After the backward pass: starts the buckets not yet started, waits for every sum and sets
    // each parameter's gradient to it (none where no rank had one, as in one process).
    void finish();

private:
    // Parameters of one dtype, packed as sum_gradients_over_ranks packs them (pack_gradients).
    struct Bucket {
        std::vector<std::size_t> members;   // indices into parameters_
        std::size_t bytes = 0;              // of its members' gradients
        std::size_t final_from = 0;         // the smallest first use of its members
        std::vector<float> f32;             // the packed numbers, in the bucket's dtype (the buffer is
        std::vector<double> f64;            // kept from step to step)
        std::unique_ptr<distributed::PendingSum> sum;
    };
    void start(Bucket& bucket);

    std::vector<Tensor> parameters_;
    distributed::Communicator& ranks_;
    std::vector<Bucket> buckets_;
    std::size_t started_ = 0;    // buckets_[0, started_) are under way
    std::size_t finished_ = 0;   // buckets_[0, finished_) are summed
};

}  // namespace tf::train
