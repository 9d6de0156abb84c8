// Aligned allocation and the live/peak byte counters.
#include "autograd/storage.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "autograd/error.h"

namespace tf {

namespace {
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

int64_t physical_memory_bytes() {
    return static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
}
std::atomic<int64_t> g_limit_bytes{physical_memory_bytes()};

// "2.0 MiB", "16.00 GiB": sizes for a person.
std::string readable(int64_t bytes) {
    char text[32];
    if (bytes < (int64_t{1} << 30)) std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
    else std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
    return text;
}
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
    // Checked before allocating: a 16 GiB weight matrix is refused before any page is touched.
    if (static_cast<int64_t>(bytes) > g_limit_bytes.load() - g_live_bytes.load())
        throw MemoryLimitError("tensor memory: " + readable(static_cast<int64_t>(bytes)) + " more on top of the " +
                               readable(g_live_bytes.load()) + " in use would pass the limit of " + readable(g_limit_bytes.load()) +
                               " (the machine's memory unless lowered): a smaller model, batch or sequence length is needed");
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
    if (!data_)
        throw MemoryLimitError("tensor memory: the system refused " + readable(static_cast<int64_t>(bytes)) +
                               " (with " + readable(g_live_bytes.load()) + " in use)");
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
int64_t limit_bytes() { return g_limit_bytes.load(); }
void set_limit_bytes(int64_t bytes) { g_limit_bytes = bytes; }
}  // namespace memory

}  // namespace tf
