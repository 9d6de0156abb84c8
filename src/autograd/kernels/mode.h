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

// Runs body(i) for every i in [0, n): split over the threads when `parallel` and there are two
// or more tasks to split, else a plain loop on this thread. An OpenMP region that an `if` clause
// turns off still goes through the runtime (0.4 µs a call here), and a decoding step's hundred
// small ops add that up; so small work never enters one. Nor does a single task: a region for it
// would only wake the other threads (20–100 µs each here) to find nothing to do.
template <class Body>
void parallel_for(int64_t n, bool parallel, Body body) {
    if (!parallel || n < 2) {
        for (int64_t i = 0; i < n; ++i) body(i);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) body(i);
}

// Threads the fast kernels (and oneDNN) use; defaults to the machine's cores.
void set_num_threads(int threads);
int num_threads();

}  // namespace tf::kernels
