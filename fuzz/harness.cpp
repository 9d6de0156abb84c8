// One libFuzzer harness, built once per target (fuzz/CMakeLists.txt defines TF_FUZZ_TARGET as
// "config", "safetensors", "data" or "run_dir"): libFuzzer calls this with each input.
#include <cstddef>
#include <cstdint>

#include "autograd/storage.h"
#include "targets.h"

// Tensors stay under 1 GiB, inside scripts/fuzz.sh's 2 GiB memory limit: a config asking for a
// bigger model is then refused by the contract (MemoryLimitError), not reported as a finding.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    tf::memory::set_limit_bytes(int64_t{1} << 30);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const tf::fuzz::Target target = tf::fuzz::target_named(TF_FUZZ_TARGET);
    tf::fuzz::run_target(target, {reinterpret_cast<const char*>(data), size});
    return 0;
}
