// The processes a run is spread over, and the one collective data-parallel training needs: every
// rank's numbers summed, the sum left with every rank. Training sees only this interface; the MPI
// calls live behind it (mpi_communicator.cpp), so another engine could be added beside them, and
// no MPI type reaches a layer or a model. docs/distributed.md
#pragma once
#include <memory>
#include <span>
#include <string>

namespace tf::distributed {

// A sum started by Communicator::start_all_reduce_sum, under way while this rank computes.
class PendingSum {
public:
    virtual ~PendingSum() = default;
    virtual bool done() = 0;   // lets the engine move the sum on (MPI progresses only inside its calls)
    virtual void wait() = 0;   // returns once the sum is in the values
};

class Communicator {
public:
    virtual ~Communicator() = default;
    virtual int rank() const = 0;   // 0 … size() − 1; rank 0 logs, evaluates and saves
    virtual int size() const = 0;
    // values ← Σ over ranks of each rank's values, element by element (every rank calls it).
    virtual void all_reduce_sum(std::span<float> values) = 0;
    virtual void all_reduce_sum(std::span<double> values) = 0;
    // The same sum, started now and finished by the returned PendingSum's wait(); `values` must live
    // until then. Every rank starts its sums in the same order.
    virtual std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<float> values) = 0;
    virtual std::unique_ptr<PendingSum> start_all_reduce_sum(std::span<double> values) = 0;
    // Ends every other process of the job, and this one with them, with `exit_code`: a rank that
    // failed alone would leave the others waiting in their next all-reduce. Under MPI it does not
    // return (MPI_Abort). A single process has no others to end, so it returns and leaves the exit
    // to its caller: a library never ends the process itself.
    virtual void abort_job(int exit_code) = 0;
    virtual std::string engine() const = 0;   // "one process", "Open MPI 4.1.4, 2 ranks"
};

// Returns once every rank has called it (an all-reduce of nothing): what one rank writes before it,
// the others may read after it.
void wait_for_every_rank(Communicator& ranks);

// This process alone: the sums are the values themselves.
std::unique_ptr<Communicator> single_process();

// How many processes the launcher (mpirun, srun) says the job has; 1 when started without one.
int launched_ranks();

// Every process of this launch: under mpirun or srun with more than one process, MPI's world
// (MPI started on the first call, finished at exit); otherwise this process alone. Throws
// ConfigError when launched as several processes by a build without MPI.
Communicator& world();

// How long a rank waits in one sum for the others before it ends the job with a message naming the
// wait: a rank stopped (SIGSTOP, a hung machine) would otherwise keep every other waiting forever.
// `tapeformer --rank-timeout SECONDS`; 0 waits forever. The default is far above any real step.
inline constexpr double kDefaultRankTimeoutSeconds = 600;
void set_rank_timeout(double seconds);
double rank_timeout();

// Whether this build can run over MPI, and with what ("Open MPI 4.1.4", or why not).
bool mpi_available();
std::string mpi_description();

}  // namespace tf::distributed
