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
#include <unordered_map>
#include <vector>

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
// to the OS, so every step's activations came back as fresh pages: a page fault per 4 KiB, a large
// share of a small model's training step. Training allocates the same sizes every step; keeping freed
// memory in the heap lets the next step reuse it. Done once, before the first tensor.
bool keep_freed_memory() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);  // blocks below 1 GiB come from the heap
    mallopt(M_TRIM_THRESHOLD, -1);       // never hand the heap's free top back
    return true;
}

// Freed buffers of up to kPooledBlockBytes are kept per thread, by size, for the next tensor of
// the same size: a decoding step allocates the same few hundred small tensors again and again, and
// glibc's aligned_alloc and free of them were a fifth of a step. At most kPooledBytes are kept per
// thread; pooled buffers are not live tensor bytes. Under AddressSanitizer nothing is kept, so a
// read of a freed tensor's data is still caught.
#if defined(__SANITIZE_ADDRESS__)
#define TF_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TF_ADDRESS_SANITIZER 1
#endif
#endif
constexpr std::size_t kPooledBlockBytes = std::size_t{1} << 20;
#if defined(TF_ADDRESS_SANITIZER)
constexpr std::size_t kPooledBytes = 0;
#else
constexpr std::size_t kPooledBytes = std::size_t{64} << 20;
#endif

// One thread's kept buffers, by size.
struct BufferPool {
    std::unordered_map<std::size_t, std::vector<void*>> free_blocks;
    std::size_t pooled_bytes = 0;
    ~BufferPool();
};
// Set when this thread's pool is destroyed at thread exit: a tensor freed after that (a static
// one, at program exit) frees its buffer directly.
thread_local bool t_pool_destroyed = false;
thread_local BufferPool t_pool;

BufferPool::~BufferPool() {
    t_pool_destroyed = true;
    for (auto& [bytes, blocks] : free_blocks)
        for (void* block : blocks) std::free(block);
}

// A kept buffer of exactly `bytes`, or nullptr.
void* take_pooled(std::size_t bytes) {
    if (t_pool_destroyed) return nullptr;
    const auto found = t_pool.free_blocks.find(bytes);
    if (found == t_pool.free_blocks.end() || found->second.empty()) return nullptr;
    void* block = found->second.back();
    found->second.pop_back();
    t_pool.pooled_bytes -= bytes;
    return block;
}

// Keeps the buffer if there is room; otherwise frees it.
void give_back(void* block, std::size_t bytes) {
    if (t_pool_destroyed || bytes > kPooledBlockBytes || t_pool.pooled_bytes + bytes > kPooledBytes) return std::free(block);
    t_pool.free_blocks[bytes].push_back(block);
    t_pool.pooled_bytes += bytes;
}

std::size_t block_bytes(std::size_t bytes) {
    const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    return rounded == 0 ? kAlignment : rounded;
}
}  // namespace

Storage::Storage(std::size_t bytes) : bytes_(bytes) {
    [[maybe_unused]] static const bool configured = keep_freed_memory();
    // Checked before allocating: a 16 GiB weight matrix is refused before any page is touched.
    if (static_cast<int64_t>(bytes) > g_limit_bytes.load() - g_live_bytes.load())
        throw MemoryLimitError("tensor memory: " + readable(static_cast<int64_t>(bytes)) + " more on top of the " +
                               readable(g_live_bytes.load()) + " in use would pass the limit of " + readable(g_limit_bytes.load()) +
                               " (the machine's memory unless lowered): a smaller model, batch or sequence length is needed");
    const std::size_t block = block_bytes(bytes);
    data_ = take_pooled(block);
    if (!data_) data_ = std::aligned_alloc(kAlignment, block);
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
    give_back(data_, block_bytes(bytes_));
}

namespace memory {
int64_t live_bytes() { return g_live_bytes.load(); }
int64_t peak_bytes() { return g_peak_bytes.load(); }
void reset_peak() { g_peak_bytes = g_live_bytes.load(); }
int64_t limit_bytes() { return g_limit_bytes.load(); }
void set_limit_bytes(int64_t bytes) { g_limit_bytes = bytes; }
}  // namespace memory

}  // namespace tf
