// This machine's memory read bandwidth, measured: every OpenMP thread sums its share of a buffer
// far larger than the last-level cache, so (almost) every byte it adds comes from DRAM. The
// denominator of decoding's share of the memory roofline (`tapeformer bench`'s bandwidth fraction):
// generating one token at batch 1 reads every weight and the key/value cache once and does little
// arithmetic with each byte, so its ceiling is this rate, not the FMA peak (fma_peak.h).
#pragma once
#include <cstdint>

namespace tf::analysis {

struct ReadBandwidthOptions {
    // 256 MiB: many times the last-level cache of the CPUs this runs on (tens of MiB), so the
    // caches hold a negligible share of it; small enough to allocate next to a training run on a
    // machine with a few GiB free. Tests pass a few MiB: the number is then a cache's, still finite.
    int64_t bytes = int64_t{256} << 20;
    int attempts = 5;  // the best attempt counts: a busy machine only slows one down
};

// Read bandwidth GB/s = buffer bytes / seconds of one parallel sum over the buffer / 1e9, the
// best of `attempts` after one untimed pass, on the current OpenMP threads.
double read_bandwidth_gbs(const ReadBandwidthOptions& options = {});

}  // namespace tf::analysis
