// Attention forward + backward, causal, f32: the composed (plain) path, the tiled (flash) kernel,
// linear attention, and a tanh RNN of the same width — median time and the peak tensor memory one
// call allocates, as a table or JSON. The measuring lives in src/analysis/machine/attention_scaling.h.
// Usage: bench_attention [--threads N] [--json] [--quick] [--T N] [--variant rnn|plain|tiled|linear]
//                        [--precision fp32|bf16]
// (default: T = 256, 1024, 4096 and the plain, tiled and linear variants, fp32; --precision bf16:
// every product in bf16 mixed precision, as a run config's "precision": "bf16")
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/machine/attention_scaling.h"
#include "autograd/error.h"
#include "autograd/kernels/matmul_precision.h"
#include "train/run_config.h"

using namespace tf;

namespace {

void print_row(bool json, const analysis::ScalingMeasurement& m, const analysis::ScalingOptions& options, const char* precision) {
    if (json)
        std::printf("{\"variant\":\"%s\",\"T\":%ld,\"heads\":%ld,\"head_dim\":%ld,\"precision\":\"%s\",\"ms\":%.2f,\"peak_bytes\":%ld}\n",
                    m.variant.c_str(), long(m.T), long(options.heads), long(options.head_dim), precision, m.ms, long(m.peak_bytes));
    else
        std::printf("%-8s %6ld %6ld %9ld %10.2f %12.1f\n", m.variant.c_str(), long(m.T), long(options.heads),
                    long(options.head_dim), m.ms, double(m.peak_bytes) / (1 << 20));
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    bool json = false, quick = false;
    auto precision = kernels::MatmulPrecision::fp32;
    int threads = 2;
    std::vector<int64_t> lengths = {256, 1024, 4096};
    std::vector<std::string> variants = {"plain", "tiled", "linear"};
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) json = true;
        else if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--T") && i + 1 < argc) lengths = {std::max(1L, std::atol(argv[++i]))};
        else if (!std::strcmp(argv[i], "--variant") && i + 1 < argc) variants = {argv[++i]};
        else if (!std::strcmp(argv[i], "--precision") && i + 1 < argc && enum_from_name<kernels::MatmulPrecision>(argv[i + 1]))
            precision = *enum_from_name<kernels::MatmulPrecision>(argv[++i]);
        else {
            std::fprintf(stderr, "usage: %s [--threads N] [--json] [--quick] [--T N] [--variant rnn|plain|tiled|linear] "
                                 "[--precision fp32|bf16]\n",
                         argv[0]);
            return 2;
        }
    }
    omp_set_num_threads(threads);
    const std::string precision_name = name_of(precision);
    try {
        kernels::set_matmul_precision(precision);
    } catch (const ConfigError& e) {
        std::fprintf(stderr, "bench_attention: %s\n", e.what());
        return 2;
    }
    if (!json) {
        std::printf("causal attention, forward + backward, f32 tensors, %s products, batch 1, %d threads\n\n", precision_name.c_str(), threads);
        std::printf("%-8s %6s %6s %9s %10s %12s\n", "variant", "T", "heads", "head_dim", "ms", "peak MiB");
    }
    for (int64_t T : lengths)
        for (const std::string& variant : variants) {
            analysis::ScalingOptions options;
            options.reps = quick ? 2 : (T >= 4096 ? 3 : 7);
            print_row(json, analysis::measure_scaling(variant, T, options), options, precision_name.c_str());
        }
    return 0;
}
