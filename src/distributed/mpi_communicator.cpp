// The communicator over MPI (built when CMake finds MPI: Open MPI from libopenmpi-dev). One
// MPI_Allreduce per call, in place (a started sum: one MPI_Iallreduce); MPI_Init on first use,
// MPI_Finalize at exit.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "autograd/error.h"
#include "distributed/communicator.h"

namespace tf::distributed {

namespace {

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
    void wait() override { MPI_Wait(&request_, MPI_STATUS_IGNORE); }   // a finished request is MPI_REQUEST_NULL: returns at once

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
    [[noreturn]] void abort_job(int exit_code) override {
        std::fflush(nullptr);
        MPI_Abort(MPI_COMM_WORLD, exit_code);
        std::exit(exit_code);   // MPI_Abort does not return; this satisfies [[noreturn]]
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
            MPI_Allreduce(MPI_IN_PLACE, at, static_cast<int>(piece), type, MPI_SUM, MPI_COMM_WORLD);
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
