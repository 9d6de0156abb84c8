// Gradient sums in buckets during the backward pass (train/gradient_buckets.h), on a stand-in for
// two ranks holding the same gradients: each bucket's sum starts as soon as backward has walked
// past its parameters' first use, and the sums equal the one-buffer-after-backward way's.
#include "catch.h"

#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "distributed/communicator.h"
#include "train/gradient_buckets.h"
#include "train/gradient_sum.h"

using namespace tf;

namespace {

// Rank 0 of two whose partner holds the same numbers: every sum doubles them. Each started sum
// writes "sum" into `events`, beside the walk's entries.
class TwoEqualRanks final : public distributed::Communicator {
public:
    explicit TwoEqualRanks(std::vector<std::string>& events) : events_(events) {}
    int rank() const override { return 0; }
    int size() const override { return 2; }
    void all_reduce_sum(std::span<float> values) override { double_each(values); }
    void all_reduce_sum(std::span<double> values) override { double_each(values); }
    std::unique_ptr<distributed::PendingSum> start_all_reduce_sum(std::span<float> values) override {
        events_.push_back("sum");
        double_each(values);
        return distributed::single_process()->start_all_reduce_sum(values);   // already done
    }
    std::unique_ptr<distributed::PendingSum> start_all_reduce_sum(std::span<double> values) override {
        events_.push_back("sum");
        double_each(values);
        return distributed::single_process()->start_all_reduce_sum(values);
    }
    [[noreturn]] void abort_job(int) override { throw std::logic_error("abort_job"); }
    std::string engine() const override { return "two equal ranks"; }

private:
    template <typename T>
    static void double_each(std::span<T> values) {
        for (T& value : values) value *= 2;
    }
    std::vector<std::string>& events_;
};

// Three 400 × 400 weights (640 KB each: a bucket apiece) in a chain, and one the loss never uses.
struct Chain {
    std::vector<Tensor> weights;
    Tensor x;
    explicit Chain(DType dtype = DType::f32) {
        Rng rng(5);
        x = Tensor::normal({2, 400}, 0, 1, rng, dtype);
        for (int i = 0; i < 4; ++i) weights.push_back(Tensor::normal({400, 400}, 0, 0.05, rng, dtype).set_requires_grad());
    }
    // Records matmul (entry 0, W0), matmul (1, W1), matmul (2, W2), sum (3).
    Tensor loss() const { return sum(matmul(matmul(matmul(x, weights[0]), weights[1]), weights[2])); }
};

}  // namespace

TEST_CASE("GradientBuckets starts each bucket's sum once backward has walked past its first use", "[unit]") {
    Chain chain;
    std::vector<std::string> events;
    TwoEqualRanks ranks(events);
    train::GradientBuckets buckets(chain.weights, ranks);
    Tape& tape = Tape::current();
    tape.clear();
    const Tensor loss = chain.loss();
    buckets.watch(tape);
    tape.backward(loss, {}, [&](std::size_t index) {
        events.push_back(std::to_string(index));
        buckets.walked_past(index);
    });
    buckets.finish();
    // Buckets go from the last parameter: W3 (never used: its sum of zeros goes at the first entry
    // walked past), then W2, W1, W0, each as soon as backward has walked past its matmul.
    CHECK(events == std::vector<std::string>{"3", "sum", "2", "sum", "1", "sum", "0", "sum"});
}

namespace {

// The f32 or f64 chain's gradients summed both ways: the same bits.
template <typename T>
void require_same_sums_as_one_buffer(DType dtype) {
    std::vector<std::string> events;
    TwoEqualRanks ranks(events);
    Chain during(dtype), after(dtype);
    Tape& tape = Tape::current();
    tape.clear();
    train::GradientBuckets buckets(during.weights, ranks);
    const Tensor loss = during.loss();
    buckets.watch(tape);
    tape.backward(loss, {}, [&](std::size_t index) { buckets.walked_past(index); });
    buckets.finish();
    tape.backward(after.loss());
    train::sum_gradients_over_ranks(after.weights, ranks);
    for (int i = 0; i < 3; ++i) {
        INFO("W" << i);
        const Tensor a = during.weights[i].grad(), b = after.weights[i].grad();
        REQUIRE(a.defined());
        CHECK(std::equal(a.data<T>(), a.data<T>() + a.numel(), b.data<T>()));
    }
    CHECK_FALSE(during.weights[3].grad().defined());
    CHECK_FALSE(after.weights[3].grad().defined());
}

}  // namespace

TEST_CASE("GradientBuckets sums as sum_gradients_over_ranks does, in f32 and f64, an unused parameter left without a gradient",
          "[unit]") {
    require_same_sums_as_one_buffer<float>(DType::f32);
    require_same_sums_as_one_buffer<double>(DType::f64);
}
