// A running count of the floating-point operations of every matrix multiply (2·M·N·K each,
// forward and backward alike), so benchmarks and reports can state FLOPs per token and the share
// of the machine's peak a training step reaches. Thread-safe; costs one atomic add per matmul.
#pragma once
#include <cstdint>

namespace tf {

int64_t matmul_flops();
void reset_matmul_flops();
void add_matmul_flops(int64_t flops);

}  // namespace tf
