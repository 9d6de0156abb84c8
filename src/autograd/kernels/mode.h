// Every op has two forms that compute the same function: the readable one a student reads, and a
// fast one (threads, oneDNN, fused kernels) that replaces it by default. The readable form is
// attention composed from matmul, mask and softmax; linear as matmul + add; a residual's add and
// layer norm as two ops; the reference loops in the kernels. Tests hold the two equal; a config's
// "kernels": "reference", or --reference on a command, runs the readable form (docs/design.md).
#pragma once
#include <cstdint>

namespace tf::kernels {

enum class KernelPath {
    fast,       // the default: the fast form of every op that has one
    reference,  // the readable form of every op: what the code a student reads computes, slower
};

// True while a ReferenceKernels scope is alive on this thread.
bool use_reference();

// Switches this thread to the readable forms while alive (a run of a "reference" config, a test),
// and back after. Scopes nest by adding: inside a reference scope everything stays readable.
class ReferenceKernels {
public:
    ReferenceKernels();
    explicit ReferenceKernels(KernelPath path);   // switches only for KernelPath::reference
    ~ReferenceKernels();
    ReferenceKernels(const ReferenceKernels&) = delete;
    ReferenceKernels& operator=(const ReferenceKernels&) = delete;

private:
    bool previous_;
};

// When a second thread pays. Our threads sleep while they wait (OMP_WAIT_POLICY=passive, see
// cli/main.cpp), and waking one for a parallel region costs more when it has slept a while than
// when regions follow each other closely (bench_threads times it). A region pays when its work on
// one thread takes longer than that wake-up: for a pass over memory (elementwise, softmax, layer
// norm, sums) from about 2¹⁷ elements, the line of 2¹⁵, 2¹⁷ and 2¹⁸ that no workload of W1–W4
// lost by; a kernel of multiply-adds (the attention kernels' tiles) does more work an element, so
// its line is ~2²¹ of them. (One product handed to oneDNN's threads has its own line, 2²³:
// kernels/gemm.cpp.)
inline constexpr int64_t kParallelGrain = 1 << 17;          // elements of a memory-bound pass
inline constexpr int64_t kParallelMultiplyAdds = 1 << 21;   // multiply-adds of a compute kernel
// The tape's gradient sum, acc += x, is the cheapest pass of all (one add per 12 bytes moved), and
// x was just written by the thread that sums it, so it sits in that thread's cache: a second thread
// pays only for far larger sums than other passes (bench/README.md, "Threads", has the timings).
// W2 makes a hundred such sums a step, below this line; whole training steps on both sides of it
// (`tapeformer bench --workload W2`) decide where it goes, not one day's bench_threads.
inline constexpr int64_t kParallelSumGrain = 1 << 21;       // elements of a gradient sum

// Runs body(i) for every i in [0, n): split over the threads when `parallel` and there are two
// or more tasks to split, else a plain loop on this thread. An OpenMP region that an `if` clause
// turns off still goes through the runtime, a fixed cost a call, and a decoding step's hundred
// small ops add that up; so small work never enters one. Nor does a single task: a region for it
// would only wake the other threads to find nothing to do.
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
