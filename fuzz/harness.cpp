// One libFuzzer harness, built once per target (fuzz/CMakeLists.txt defines TF_FUZZ_TARGET as
// "config", "safetensors", "data" or "run_dir"): libFuzzer calls this with each input.
#include <cstddef>
#include <cstdint>

#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const tf::fuzz::Target target = tf::fuzz::target_named(TF_FUZZ_TARGET);
    tf::fuzz::run_target(target, {reinterpret_cast<const char*>(data), size});
    return 0;
}
