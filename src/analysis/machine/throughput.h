// Training and decoding throughput of a model on random tokens, measured as the PyTorch peer
// (bench/torch_peer.py) measures it: fixed batches, Adam lr 1e-3, warm-up steps, then the median
// of N timed steps (forward + loss + backward + Adam). tokens/s = B·T / median.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/build.h"

namespace tf::analysis {

inline constexpr int64_t kBenchVocab = 96;  // the peer's vocabulary; ids 2…95 are drawn, 1 is <bos>

// A model and the shape of its batches: B sequences of T tokens (W1–W3: source and target of T).
struct Workload {
    std::string name;
    ModelConfig model;
    int64_t batch = 32, length = 64;
};

// W1–W4 of bench/README.md, built from code (the sizes of configs/bench/w1.json … w4.json, which
// the peer's torch.nn models are built from).
std::vector<Workload> reference_workloads();
// One of them by name ("W1" … "W4"); throws ValueError listing the names.
Workload reference_workload(const std::string& name);

struct TimingStats {
    double median = 0, min = 0, max = 0;  // seconds
};
TimingStats timing_stats(std::vector<double> seconds);

struct TrainingThroughput {
    std::string workload;
    int64_t batch = 0, length = 0, parameters = 0, threads = 0;
    TimingStats step;                 // seconds per training step
    double tokens_per_second = 0;     // B·T / step.median
    double matmul_flops_per_step = 0; // every gemm the step ran, forward and backward
    double matmul_gflops = 0;         // matmul_flops_per_step / step.median / 1e9
    double mfu = 0;                   // matmul_gflops / peak GFLOP/s (0 when no peak is given)
    double mfu_bf16 = 0;              // matmul_gflops / the bf16 matmul roof (0 when none is given)
    // The products alone (those called outside a parallel region, gemm.h), medians over the timed steps:
    double matmul_time_share = 0;     // their seconds in a step / the step's seconds
    double matmul_own_gflops = 0;     // their FLOPs in a step / their seconds / 1e9
    double mfu_ceiling = 0;           // matmul_own_gflops / peak: the MFU if nothing but the products took time
    double mfu_ceiling_bf16 = 0;      // the same against the bf16 matmul roof
    int64_t peak_bytes = 0;           // tensor-memory high-water mark during the timed steps
    int64_t peak_bytes_above_start = 0;  // the same, minus what was live before (weights, Adam state)
    double loss_first = 0, loss_last = 0;
};

struct ThroughputOptions {
    int warmup = 5, steps = 30;
    double peak_gflops = 0;  // the machine's FP32 peak, for the MFU
    double bf16_roof_gflops = 0;  // the bf16 matmul roof (matmul_roof.h), for bf16's MFU; 0: none
    uint64_t seed = 0;       // weights and batches
};

// Builds the model, 8 random batches, Adam; warms up, then times `steps` training steps.
TrainingThroughput measure_training(const Workload& workload, const ThroughputOptions& options);

struct DecodingThroughput {
    std::string workload;
    int64_t source_length = 0, generated = 0, threads = 0;
    DecodeCache cache = DecodeCache::automatic;
    TimingStats run;                  // seconds per decoded sequence
    double tokens_per_second = 0;     // generated / run.median
    // What the decode state holds after the last token: the encoder memory (seq2seq) plus the
    // key/value cache, in bytes.
    int64_t state_bytes = 0;
    // The bytes one generated token must read, and their rate's share of the measured read
    // bandwidth (0 when none was given): decode_bytes.h says what is counted.
    double bytes_per_token = 0;
    double bandwidth_fraction = 0;   // bytes_per_token × tokens_per_second / read bandwidth
    // A model whose bytes fit in the caches is read from them, not from memory, and its fraction of
    // the memory bandwidth can pass 1. So beside it: the read rate of a buffer of bytes_per_token
    // (measured the same way, read_bandwidth.h), which is the ceiling for that working set on this
    // machine, and the share of it reached. 0 when no bandwidth was asked for.
    double working_set_gbs = 0;
    double working_set_fraction = 0;   // bytes_per_token × tokens_per_second / working_set_gbs
};

// Greedy decoding, batch 1 (benchmark D for a seq2seq workload; generation for a language model):
// encode a random source of `workload.length` tokens once (none for an LM), then `generated` times
// step the decoder — with the key/value cache, or re-running the prefix for DecodeCache::off — and
// append the argmax (no early stop at <eos>, as the peer). Two warm-up runs, then `runs` timed ones.
// With the machine's read bandwidth (read_bandwidth.h, GB/s), also the bandwidth fraction.
DecodingThroughput measure_decoding(const Workload& workload, int64_t generated, int runs, DecodeCache cache,
                                    double read_bandwidth_gbs = 0);

}  // namespace tf::analysis
