// Aligned allocation and the live/peak byte counters.
#include "autograd/storage.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <cstring>
#include <new>

namespace tf {

namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
constexpr std::size_t kAlignment = 64;

// glibc serves big blocks (128 KiB and up, adaptively more) with mmap and returns freed heap tops
// to the OS, so every step's activations came back as fresh pages: a page fault per 4 KiB, ~15 %
// of a small model's training step. Training allocates the same sizes every step; keeping freed
// memory in the heap lets the next step reuse it. Done once, before the first tensor.
bool keep_freed_memory() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);  // blocks below 1 GiB come from the heap
    mallopt(M_TRIM_THRESHOLD, -1);       // never hand the heap's free top back
    return true;
}
}  // namespace

Storage::Storage(std::size_t bytes) : bytes_(bytes) {
    [[maybe_unused]] static const bool configured = keep_freed_memory();
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
    if (!data_) throw std::bad_alloc();
    const int64_t live = g_live_bytes += static_cast<int64_t>(bytes);
    int64_t peak = g_peak_bytes.load();
    while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
    }
}

Storage::~Storage() {
    g_live_bytes -= static_cast<int64_t>(bytes_);
    std::free(data_);
}

namespace memory {
int64_t live_bytes() { return g_live_bytes.load(); }
int64_t peak_bytes() { return g_peak_bytes.load(); }
void reset_peak() { g_peak_bytes = g_live_bytes.load(); }
}  // namespace memory

}  // namespace tf
