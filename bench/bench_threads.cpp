// When a second thread pays: one memory pass (acc += x, the tape's gradient sum) and one f32
// product (32 rows, an RNN step's or a weight gradient's shape) timed on one thread and on two, at
// growing sizes. Each call comes after 1 ms of work on this thread alone, as an op comes after
// other ops in a training step, so under OMP_WAIT_POLICY=passive (tapeformer's default) the other
// thread has gone to sleep and must be woken. The size where two threads start to win shows where
// to look for the kernels' thresholds (kernels/mode.h, kernels/gemm.cpp). What it reads changes
// with the host's state from day to day, so whole training steps on both sides of a line set it.
// Usage: bench_threads [--reps N]        (median of N calls each, default 21)
#include "autograd/kernels/gemm.h"
#include "autograd/kernels/mode.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// At least 1 ms of arithmetic on this thread alone, in whole passes over `data` (so it is in this
// core's caches, as an op's output is when the next op reads it).
void work_alone(std::vector<float>& data) {
    const auto start = Clock::now();
    while (microseconds_since(start) < 1000)
        for (float& x : data) x = x * 0.999999f + 1e-7f;
}

// Median time of `call` with `threads` threads, each call after work_alone.
double median_microseconds(int threads, int reps, std::vector<float>& warm, const std::function<void()>& call) {
    tf::kernels::set_num_threads(threads);
    call();   // creates and caches the oneDNN primitive for this thread count
    std::vector<double> times;
    for (int rep = 0; rep < reps; ++rep) {
        work_alone(warm);
        const auto start = Clock::now();
        call();
        times.push_back(microseconds_since(start));
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

void report(const char* kind, const char* size, double one, double two) {
    std::printf("%-8s %-22s %10.1f %10.1f %8.2f  %s\n", kind, size, one, two, one / two, two < one ? "two" : "one");
}

}  // namespace

int main(int argc, char** argv) {
    int reps = 21;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = std::max(1, std::atoi(argv[++i]));
        } else {
            std::fprintf(stderr, "usage: %s [--reps N]\n", argv[0]);
            return 2;
        }
    }
    std::printf("%-8s %-22s %10s %10s %8s  %s\n", "kind", "size", "1 thr µs", "2 thr µs", "speedup", "faster");
    // acc += x over n floats: one add per 12 bytes moved, x just written by this thread.
    for (int log2n = 17; log2n <= 23; ++log2n) {
        const int64_t n = int64_t{1} << log2n;
        std::vector<float> acc(n, 1.0f), x(n, 2.0f);
        const auto sum_with = [&](bool parallel) {
            return [&, parallel] { tf::kernels::parallel_for(n, parallel, [&](int64_t i) { acc[i] += x[i]; }); };
        };
        char size[32];
        std::snprintf(size, sizeof size, "2^%d floats", log2n);
        report("sum", size, median_microseconds(1, reps, x, sum_with(false)), median_microseconds(2, reps, x, sum_with(true)));
    }
    // C (32 × N) = A (32 × K) · B (K × N) by oneDNN, its own threading (gemm_onednn decides nothing).
    for (const auto& [N, K] : std::vector<std::pair<int64_t, int64_t>>{{128, 128}, {384, 128}, {384, 256}, {512, 512},
                                                                        {1024, 512}, {1024, 1024}, {2048, 1024}}) {
        const int64_t M = 32;
        std::vector<float> A(M * K, 0.5f), B(K * N, 0.25f), C(M * N);
        const tf::kernels::GemmShape shape{.M = M, .N = N, .K = K};
        const auto product = [&] { tf::kernels::gemm_onednn(A.data(), B.data(), C.data(), shape); };
        char size[32];
        std::snprintf(size, sizeof size, "32x%ldx%ld (2^%.1f)", static_cast<long>(N), static_cast<long>(K),
                      std::log2(static_cast<double>(M * N * K)));
        report("product", size, median_microseconds(1, reps, A, product), median_microseconds(2, reps, A, product));
    }
    return 0;
}
