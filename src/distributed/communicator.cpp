// The single-process communicator and the launcher's process count.
#include "distributed/communicator.h"

#include <cstdlib>
#include <string>

#include "autograd/error.h"

namespace tf::distributed {

namespace {

// One process's sum is its own values: done as soon as it starts.
class NothingPending final : public PendingSum {
public:
    bool done() override { return true; }
    void wait() override {}
};

class SingleProcess final : public Communicator {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    void all_reduce_sum(std::span<float>) override {}
    void all_reduce_sum(std::span<double>) override {}
    std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<float>) override { return std::make_unique<NothingPending>(); }
    std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<double>) override { return std::make_unique<NothingPending>(); }
    void abort_job(int) override {}   // no other rank waits for this one: the caller exits
    std::string engine() const override { return "one process"; }
};

// The first of these the launcher set, as a count (0 if none).
int environment_count(std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (const char* value = std::getenv(name)) return std::atoi(value);
    return 0;
}

}  // namespace

namespace {
double g_rank_timeout_seconds = kDefaultRankTimeoutSeconds;
}  // namespace

void set_rank_timeout(double seconds) { g_rank_timeout_seconds = seconds; }
double rank_timeout() { return g_rank_timeout_seconds; }

void wait_for_every_rank(Communicator& ranks) {
    double nothing = 0;
    ranks.all_reduce_sum(std::span<double>(&nothing, 1));
}

std::unique_ptr<Communicator> single_process() { return std::make_unique<SingleProcess>(); }

// Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; MPICH's and Slurm's PMI set PMI_SIZE.
int launched_ranks() { return std::max(1, environment_count({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})); }

}  // namespace tf::distributed
