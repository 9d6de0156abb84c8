// Aligned allocation and the live/peak byte counters.
#include "autograd/storage.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tf {

namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};
constexpr std::size_t kAlignment = 64;
}  // namespace

Storage::Storage(std::size_t bytes) : bytes_(bytes) {
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
