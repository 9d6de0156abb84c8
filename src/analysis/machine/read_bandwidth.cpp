// The read-bandwidth kernel: a parallel sum of a float buffer, each thread over one contiguous
// share, in independent accumulators so the adds never wait for each other and only memory sets
// the pace.
#include "analysis/machine/read_bandwidth.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace tf::analysis {

namespace {

constexpr int64_t kAccumulators = 64;  // floats summed side by side: a few vector registers' worth

volatile float bandwidth_sink;  // the sums are stored here so the compiler cannot drop the reads

// This thread's share [begin, end) of `count` floats under a static split over the team.
void thread_share(int64_t count, int64_t& begin, int64_t& end) {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t per_thread = (count + threads - 1) / threads;
    begin = std::min(count, thread * per_thread);
    end = std::min(count, begin + per_thread);
}

// Σ data[begin … end): acc[j] += data[i + j] for each block of kAccumulators, then the rest.
float sum_share(const float* data, int64_t begin, int64_t end) {
    float acc[kAccumulators] = {};
    int64_t i = begin;
    for (; i + kAccumulators <= end; i += kAccumulators)
        for (int64_t j = 0; j < kAccumulators; ++j) acc[j] += data[i + j];
    float sum = 0;
    for (; i < end; ++i) sum += data[i];
    for (const float a : acc) sum += a;
    return sum;
}

// Seconds for the threads to sum the whole buffer once.
double time_one_pass(const float* data, int64_t count) {
    float sum = 0;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : sum)
    {
        int64_t begin = 0, end = 0;
        thread_share(count, begin, end);
        sum += sum_share(data, begin, end);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    bandwidth_sink = sum;
    return seconds;
}

}  // namespace

double read_bandwidth_gbs(const ReadBandwidthOptions& options) {
    const int64_t count = std::max<int64_t>(1, options.bytes / int64_t(sizeof(float)));
    const std::unique_ptr<float[]> data(new float[static_cast<std::size_t>(count)]);
    // Each thread first writes the share it will read: its pages are then placed on its own
    // memory node (first touch), as a model's weights are after its first step.
#pragma omp parallel
    {
        int64_t begin = 0, end = 0;
        thread_share(count, begin, end);
        std::fill(data.get() + begin, data.get() + end, 1.0f);
    }
    time_one_pass(data.get(), count);  // untimed: wakes the threads and warms the TLB
    double best = 0;
    for (int attempt = 0; attempt < options.attempts; ++attempt) {
        const double seconds = time_one_pass(data.get(), count);
        best = std::max(best, double(count) * sizeof(float) / seconds / 1e9);
    }
    return best;
}

}  // namespace tf::analysis
