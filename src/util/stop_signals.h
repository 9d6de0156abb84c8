// SIGINT and SIGTERM as requests to stop, read by the training loop between steps.
//
// No signal handler runs in this program. A handler runs on whichever thread the signal happens to
// interrupt, in the middle of whatever it was doing: a oneDNN kernel, malloc, an MPI collective.
// Under mpirun, ranks stopped that way died of a corrupted heap about one SIGTERM in two
// (tests/mpi/stop_and_crash.sh term), though the handler only set an atomic flag. So main() blocks
// both signals before any other thread exists — every thread started later (OpenMP's, oneDNN's,
// Open MPI's) inherits the block — and one thread of ours takes them with sigwait() and does
// nothing else.
#pragma once

namespace tf {

// Blocks SIGINT and SIGTERM in this thread, and so in every thread started after, and starts the
// thread that receives them. Call first thing in main().
void receive_stop_signals_on_own_thread();

// While a StopRequests lives, SIGINT or SIGTERM sets requested() instead of ending the program.
// With none alive they end it as they always do (exit status 128 + the signal's number), and a
// signal the program was started ignoring stays ignored.
class StopRequests {
public:
    StopRequests();   // clears an earlier request, unless another StopRequests is alive (then shares it)
    ~StopRequests();
    StopRequests(const StopRequests&) = delete;
    StopRequests& operator=(const StopRequests&) = delete;
    bool requested() const;
    int signal_number() const;   // SIGINT or SIGTERM once requested(), 0 before
};

// The exit status of a command that a signal stopped after it saved its work: 128 + the signal's
// number (130 for SIGINT, 143 for SIGTERM), as a shell reports a program the signal killed, so a
// script can tell a stopped run from a finished one.
constexpr int exit_status_after(int signal_number) { return 128 + signal_number; }

}  // namespace tf
