// The memory behind tensors: one 64-byte aligned buffer per Storage (oneDNN and AVX-512 like
// aligned rows), and a counter of live tensor bytes with its high-water mark, so benchmarks can
// report how much memory an op really allocated, and refuse to go past a limit.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tf {

class Storage {
public:
    explicit Storage(std::size_t bytes);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;

    void* data() { return data_; }
    const void* data() const { return data_; }
    std::size_t bytes() const { return bytes_; }

private:
    void* data_;
    std::size_t bytes_;
};

namespace memory {
int64_t live_bytes();       // tensor bytes allocated right now
int64_t peak_bytes();       // the most that were live at once since the last reset_peak()
void reset_peak();          // peak := live
// New tensors that would bring live_bytes() above the limit throw MemoryLimitError. The default
// is the machine's physical memory; the fuzz harnesses lower it to stay inside libFuzzer's.
int64_t limit_bytes();
void set_limit_bytes(int64_t bytes);
}  // namespace memory

}  // namespace tf
