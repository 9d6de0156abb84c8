// The reference/fast switch and the thread count (OpenMP, shared with oneDNN).
#include "autograd/kernels/mode.h"

#include <omp.h>

namespace tf::kernels {

namespace {
thread_local bool g_use_reference = false;
}

bool use_reference() { return g_use_reference; }

ReferenceKernels::ReferenceKernels() : ReferenceKernels(KernelPath::reference) {}
ReferenceKernels::ReferenceKernels(KernelPath path) : previous_(g_use_reference) {
    g_use_reference = g_use_reference || path == KernelPath::reference;
}
ReferenceKernels::~ReferenceKernels() { g_use_reference = previous_; }

void set_num_threads(int threads) { omp_set_num_threads(threads); }
int num_threads() { return omp_get_max_threads(); }

}  // namespace tf::kernels
