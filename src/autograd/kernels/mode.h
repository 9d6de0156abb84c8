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
// cli/main.cpp), and waking one for a parallel region costs 20–100 µs when it has slept a while,
// less when regions follow each other closely (bench_threads). A pass over memory (elementwise,
// softmax, layer norm, sums) runs about 0.1–0.3 ns an element on one thread, so the line sits at
// 2¹⁷ elements (~25 µs): measured against 2¹⁵ and 2¹⁸ on W1–W4, the one no workload lost by. A
// kernel of multiply-adds (the attention kernels' tiles) runs ~10 per ns, so its line is ~2²¹ of
// them. (One product handed to oneDNN's threads has its own line, 2²³: kernels/gemm.cpp.)
inline constexpr int64_t kParallelGrain = 1 << 17;          // elements of a memory-bound pass
inline constexpr int64_t kParallelMultiplyAdds = 1 << 21;   // multiply-adds of a compute kernel
// The tape's gradient sum, acc += x, is the cheapest pass of all (one add per 12 bytes moved), and
// x was just written by the thread that sums it. bench_threads, after the other thread has slept:
// two threads lost at every size up to 2²¹ floats (2¹⁸: 28 µs alone, 93 on two) and tied there.
// At 2¹⁷ W2's 135 sums a step (2¹⁸–2¹⁹ floats each) took 7.6 ms on two threads, 3.7 on one.
// With gemm's line, this one made W2 1.09–1.15× faster on two threads here, and level on an AMX
// Xeon (`tapeformer bench --workload W2`), though bench_threads on another day found two threads winning from 2¹⁷.
inline constexpr int64_t kParallelSumGrain = 1 << 21;       // elements of a gradient sum

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
