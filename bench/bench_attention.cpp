// Attention forward + backward, causal, f32: the composed (plain) path, the tiled (flash) kernel and
// linear attention — median time and the peak tensor memory one call allocates, as a table or JSON.
// Usage: bench_attention [--threads N] [--json] [--quick] [--T N] [--variant plain|tiled|linear]
// (default: T = 256, 1024, 4096 and every variant)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/tape.h"
#include "layers/attention/linear_attention.h"
#include "layers/attention/tiled_attention.h"

using namespace tf;

namespace {

constexpr int64_t kHeads = 4, kHeadDim = 64;

struct Measurement {
    double ms;            // median wall time of one forward + backward
    int64_t peak_bytes;   // tensor bytes allocated at the high-water mark, above what was live before
};

Tensor attend(const std::string& variant, const Tensor& Q, const Tensor& K, const Tensor& V) {
    if (variant == "plain") return composed_attention(Q, K, V, {.causal = true});
    if (variant == "tiled") return tiled_attention(Q, K, V, {.causal = true});
    return linear_attention(Q, K, V, {.causal = true});
}

// One warm-up call, then `reps` timed calls; Q, K, V and the seed gradient dO exist beforehand.
Measurement measure(const std::string& variant, int64_t T, int reps) {
    Rng rng(1);
    const Shape shape{1, kHeads, T, kHeadDim};   // (B, H, T, D)
    Tensor Q = Tensor::uniform(shape, -1, 1, rng), K = Tensor::uniform(shape, -1, 1, rng),
           V = Tensor::uniform(shape, -1, 1, rng);
    for (Tensor* x : {&Q, &K, &V}) x->set_requires_grad();
    const Tensor dO = Tensor::uniform(shape, -1, 1, rng);
    auto call = [&] {
        const Tensor O = attend(variant, Q, K, V);
        Tape::current().backward(O, dO);
        for (Tensor* x : {&Q, &K, &V}) x->zero_grad();
    };
    call();
    std::vector<double> times;
    Measurement result{0, 0};
    for (int r = 0; r < reps; ++r) {
        const int64_t live_before = memory::live_bytes();
        memory::reset_peak();
        const auto start = std::chrono::steady_clock::now();
        call();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        result.peak_bytes = std::max(result.peak_bytes, memory::peak_bytes() - live_before);
    }
    std::sort(times.begin(), times.end());
    result.ms = times[times.size() / 2];
    return result;
}

void print_row(bool json, const std::string& variant, int64_t T, const Measurement& m) {
    if (json)
        std::printf("{\"variant\":\"%s\",\"T\":%ld,\"heads\":%ld,\"head_dim\":%ld,\"ms\":%.2f,\"peak_bytes\":%ld}\n",
                    variant.c_str(), long(T), long(kHeads), long(kHeadDim), m.ms, long(m.peak_bytes));
    else
        std::printf("%-8s %6ld %6ld %9ld %10.2f %12.1f\n", variant.c_str(), long(T), long(kHeads), long(kHeadDim), m.ms,
                    double(m.peak_bytes) / (1 << 20));
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false, quick = false;
    int threads = 2;
    std::vector<int64_t> lengths = {256, 1024, 4096};
    std::vector<std::string> variants = {"plain", "tiled", "linear"};
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--T") && i + 1 < argc) lengths = {std::max(1L, std::atol(argv[++i]))};
        else if (!std::strcmp(argv[i], "--variant") && i + 1 < argc) variants = {argv[++i]};
        else {
            std::fprintf(stderr, "usage: %s [--threads N] [--json] [--quick] [--T N] [--variant plain|tiled|linear]\n", argv[0]);
            return 2;
        }
    }
    omp_set_num_threads(threads);
    if (!json) {
        std::printf("causal attention, forward + backward, f32, batch 1, %d threads\n\n", threads);
        std::printf("%-8s %6s %6s %9s %10s %12s\n", "variant", "T", "heads", "head_dim", "ms", "peak MiB");
    }
    for (int64_t T : lengths)
        for (const std::string& variant : variants) {
            const int reps = quick ? 2 : (T >= 4096 ? 3 : 7);
            print_row(json, variant, T, measure(variant, T, reps));
        }
    return 0;
}
