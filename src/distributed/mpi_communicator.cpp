// The communicator over MPI (built when CMake finds MPI: Open MPI from libopenmpi-dev). Every sum
// is one MPI_Iallreduce in place, waited for under the rank timeout; MPI_Init on first use,
// MPI_Finalize at exit.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

#include "autograd/error.h"
#include "distributed/communicator.h"

namespace tf::distributed {

namespace {

// Waits for `request` as MPI_Wait would, but ends the job once rank_timeout() has passed: the
// other ranks never came (one is stopped, hung or dead without its launcher noticing). The first
// 10 ms poll without pause, as MPI_Wait itself does (MPI moves a sum on only inside its calls);
// a longer wait is for another rank, and polls every 50 µs so as not to hold a core it may need.
void wait_within_timeout(MPI_Request& request) {
    using Clock = std::chrono::steady_clock;
    const double limit = rank_timeout();
    const Clock::time_point start = Clock::now();
    for (int complete = 0;;) {
        MPI_Test(&request, &complete, MPI_STATUS_IGNORE);
        if (complete) return;
        const double waited = std::chrono::duration<double>(Clock::now() - start).count();
        if (limit > 0 && waited > limit) {
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            const std::string message = "error (rank " + std::to_string(rank) + "): waited " + std::to_string(static_cast<int>(waited)) +
                                        " s in a sum for the other ranks, past --rank-timeout " + std::to_string(limit) +
                                        " s: a rank is stopped, hung or far slower; ending the job (the last checkpoint is whole)\n";
            std::fputs(message.c_str(), stderr);
            std::fflush(nullptr);
            // MPI_Abort, not an exception: unwinding would pass through MpiPendingSum's destructor,
            // which waits on a sum of this same kind, and through code that may start another;
            // the ranks that did come wait inside this collective, and MPI_Abort is the one way
            // MPI gives to end ranks blocked in one.
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (waited > 10e-3) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

// One MPI_Iallreduce in flight; the destructor waits for it, so its buffer is never left in use.
class MpiPendingSum final : public PendingSum {
public:
    MpiPendingSum(void* data, std::size_t count, MPI_Datatype type) {
        if (count > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            throw Error("start_all_reduce_sum: " + std::to_string(count) + " numbers in one sum; MPI counts are ints");
        MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), type, MPI_SUM, MPI_COMM_WORLD, &request_);
    }
    ~MpiPendingSum() override { wait(); }
    bool done() override {
        int complete = 0;
        MPI_Test(&request_, &complete, MPI_STATUS_IGNORE);
        return complete != 0;
    }
    void wait() override { wait_within_timeout(request_); }   // a finished request is MPI_REQUEST_NULL: returns at once

private:
    MPI_Request request_ = MPI_REQUEST_NULL;
};

class MpiWorld final : public Communicator {
public:
    MpiWorld() {
        int provided = 0;
        // Only the thread that runs the training loop calls MPI (FUNNELED); OpenMP's threads never do.
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &size_);
    }
    ~MpiWorld() override { MPI_Finalize(); }
    int rank() const override { return rank_; }
    int size() const override { return size_; }
    void all_reduce_sum(std::span<float> values) override { reduce(values.data(), values.size(), MPI_FLOAT); }
    void all_reduce_sum(std::span<double> values) override { reduce(values.data(), values.size(), MPI_DOUBLE); }
    std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<float> values) override {
        return std::make_unique<MpiPendingSum>(values.data(), values.size(), MPI_FLOAT);
    }
    std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<double> values) override {
        return std::make_unique<MpiPendingSum>(values.data(), values.size(), MPI_DOUBLE);
    }
    // MPI_Abort, not an exception: the other ranks wait inside a collective this rank will never
    // join, and MPI gives no other way to end a rank blocked in one. It does not return; were an
    // MPI library's to, the caller would still exit with `exit_code`.
    void abort_job(int exit_code) override {
        std::fflush(nullptr);
        MPI_Abort(MPI_COMM_WORLD, exit_code);
    }
    std::string engine() const override { return mpi_description() + ", " + std::to_string(size_) + " ranks"; }

private:
    // MPI counts are ints: a buffer over 2³¹ − 1 numbers goes in pieces.
    static void reduce(void* data, std::size_t count, MPI_Datatype type) {
        int type_size = 0;
        MPI_Type_size(type, &type_size);
        constexpr std::size_t kMaxCount = 1u << 30;
        for (std::size_t start = 0; start < count; start += kMaxCount) {
            const std::size_t piece = std::min(kMaxCount, count - start);
            char* at = static_cast<char*>(data) + start * static_cast<std::size_t>(type_size);
            MPI_Request request = MPI_REQUEST_NULL;
            MPI_Iallreduce(MPI_IN_PLACE, at, static_cast<int>(piece), type, MPI_SUM, MPI_COMM_WORLD, &request);
            wait_within_timeout(request);
        }
    }
    int rank_ = 0, size_ = 1;
};

}  // namespace

bool mpi_available() { return true; }

std::string mpi_description() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string text(version, static_cast<std::size_t>(length));
    text = text.substr(0, text.find_first_of(",\n"));   // "Open MPI v4.1.4, package: …" → "Open MPI v4.1.4"
    return text;
}

Communicator& world() {
    static std::unique_ptr<Communicator> communicator =
        launched_ranks() > 1 || std::getenv("PMIX_RANK") ? std::unique_ptr<Communicator>(std::make_unique<MpiWorld>())
                                                         : single_process();
    return *communicator;
}

}  // namespace tf::distributed
