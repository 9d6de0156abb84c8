// Matmul throughput: measures this machine's FP32 FMA peak, then GFLOP/s of the oneDNN and the
// reference GEMM on square, projection and batched-attention shapes, as a table or JSON lines.
// Usage: bench_matmul [--threads N] [--json] [--quick]
#include "analysis/machine/fma_peak.h"
#include "autograd/kernels/gemm.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using tf::kernels::GemmShape;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Case {
    std::string name;
    GemmShape shape;
};

// Batched operands are packed one matrix after another.
GemmShape batched(int64_t batch, int64_t M, int64_t N, int64_t K, bool trans_b) {
    return {batch, M, N, K, false, trans_b, M * K, K * N, M * N, false};
}

std::vector<Case> cases() {
    std::vector<Case> list;
    for (int64_t n : {64, 128, 256, 512, 1024}) list.push_back({"sq" + std::to_string(n), batched(1, n, n, n, false)});
    list.push_back({"qkv", batched(1, 2048, 384, 128, false)});        // [2048×128]·[128×384]
    list.push_back({"attn_qkT", batched(128, 64, 64, 32, true)});      // Q·Kᵀ per head
    list.push_back({"attn_wv", batched(128, 64, 32, 64, false)});      // weights·V per head
    return list;
}

double flops_of(const GemmShape& s) { return 2.0 * s.batch * s.M * s.N * s.K; }

struct Measured {
    double gflops;        // median over the timed batches
    double peak_gflops;   // median FMA peak over windows timed between those batches
};

// `batches` timed batches of ≥ min_seconds each (after two warm-up calls), each right after an FMA
// peak window of about the same length. The VM's speed drifts by ±15 % over seconds; pairing each
// batch with a peak window measured beside it keeps the share of peak from mixing two moments.
Measured measure(const std::function<void()>& call, const GemmShape& s, int batches, double min_seconds) {
    call();   // the first call creates and caches the primitive: not a measure of one call
    auto start = std::chrono::steady_clock::now();
    call();
    const double one_call = std::max(seconds_since(start), 1e-7);
    const int64_t reps = std::max<int64_t>(1, int64_t(min_seconds / one_call));
    // ~8 cycles per round of 16 FMAs on two ports: min_seconds at ~3 GHz
    const tf::analysis::FmaPeakOptions peak_window{.iterations = int64_t(min_seconds * 3e9 / 8), .attempts = 1};
    std::vector<double> rates, peaks;
    for (int b = 0; b < batches; ++b) {
        peaks.push_back(tf::analysis::fma_peak_gflops(peak_window));
        start = std::chrono::steady_clock::now();
        for (int64_t r = 0; r < reps; ++r) call();
        rates.push_back(flops_of(s) * reps / seconds_since(start) / 1e9);
    }
    auto median = [](std::vector<double> values) {
        std::sort(values.begin(), values.end());
        return values[values.size() / 2];
    };
    return {median(rates), median(peaks)};
}

void print_row(bool json, const std::string& name, const GemmShape& s, const char* impl, const Measured& m) {
    if (json)
        std::printf("{\"case\":\"%s\",\"m\":%ld,\"n\":%ld,\"k\":%ld,\"batch\":%ld,\"impl\":\"%s\","
                    "\"gflops\":%.1f,\"peak_gflops\":%.1f}\n",
                    name.c_str(), long(s.M), long(s.N), long(s.K), long(s.batch), impl, m.gflops, m.peak_gflops);
    else
        std::printf("%-10s %6ld %6ld %6ld %6ld  %-10s %9.1f %9.1f %8.1f%%\n", name.c_str(), long(s.batch), long(s.M),
                    long(s.N), long(s.K), impl, m.gflops, m.peak_gflops, 100 * m.gflops / m.peak_gflops);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false, quick = false;
    int threads = 2;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: %s [--threads N] [--json] [--quick]\n", argv[0]);
            return 2;
        }
    }
    omp_set_num_threads(threads);
    const int batches = quick ? 5 : 7;
    const double min_seconds = quick ? 0.02 : 0.06;
    // The reference loop runs single-threaded at well under 1 GFLOP/s: above 512³ one call takes seconds.
    const double reference_flop_limit = 2.0 * 512 * 512 * 512;

    if (!json) {
        std::printf("threads %d, FP32 FMA peak %.1f GFLOP/s at start (%d-lane FMA, all threads)\n", threads,
                    tf::analysis::fma_peak_gflops(), tf::analysis::fma_lanes());
        std::printf("each case's peak is measured in windows between its timed batches\n\n");
        std::printf("%-10s %6s %6s %6s %6s  %-10s %9s %9s %9s\n", "case", "batch", "m", "n", "k", "impl", "GFLOP/s",
                    "peak", "% peak");
    }
    std::mt19937 rng(0);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (const Case& c : cases()) {
        const GemmShape& s = c.shape;
        std::vector<float> A(s.batch * s.M * s.K), B(s.batch * s.K * s.N), C(s.batch * s.M * s.N);
        for (float& v : A) v = uniform(rng);
        for (float& v : B) v = uniform(rng);
        // The framework's f32 path: oneDNN, with a batch of small products split between threads.
        auto onednn = [&] { tf::kernels::gemm(A.data(), B.data(), C.data(), s); };
        auto reference = [&] { tf::kernels::gemm_reference(A.data(), B.data(), C.data(), s); };
        print_row(json, c.name, s, "onednn", measure(onednn, s, batches, min_seconds));
        if (flops_of(s) <= reference_flop_limit)
            print_row(json, c.name, s, "reference", measure(reference, s, batches, min_seconds));
        else if (!json)
            std::printf("%-10s %6ld %6ld %6ld %6ld  %-10s %9s\n", c.name.c_str(), long(s.batch), long(s.M),
                        long(s.N), long(s.K), "reference", "skipped");
    }
    return 0;
}
