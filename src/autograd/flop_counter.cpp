// The matmul FLOP counter.
#include "autograd/flop_counter.h"

#include <atomic>

namespace tf {

namespace {
std::atomic<int64_t> g_matmul_flops{0};
}

int64_t matmul_flops() { return g_matmul_flops.load(); }
void reset_matmul_flops() { g_matmul_flops = 0; }
void add_matmul_flops(int64_t flops) { g_matmul_flops += flops; }

}  // namespace tf
