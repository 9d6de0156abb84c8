// Every kernel has two paths: a readable reference loop (what a student reads) and a fast path
// (threads, oneDNN). The fast path is the default; ReferenceKernels switches this thread to the
// reference loops, which is how tests hold the two paths equal on the same ops.
#pragma once
#include <cstdint>

namespace tf::kernels {

bool use_reference();

class ReferenceKernels {
public:
    ReferenceKernels();
    ~ReferenceKernels();
    ReferenceKernels(const ReferenceKernels&) = delete;
    ReferenceKernels& operator=(const ReferenceKernels&) = delete;

private:
    bool previous_;
};

// Below this many elements, spreading work over threads costs more than it saves.
inline constexpr int64_t kParallelGrain = 1 << 15;

// Threads the fast kernels (and oneDNN) use; defaults to the machine's cores.
void set_num_threads(int threads);
int num_threads();

}  // namespace tf::kernels
