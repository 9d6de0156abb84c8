// SIGINT and SIGTERM taken by their own thread: a request while a run listens, the default ending
// when none does. Each case runs in a forked child, so the test process keeps its own signals.
#include "catch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <thread>

#include "util/stop_signals.h"

using namespace tf;

namespace {

// Runs `child` in a forked process (which exits with what it returns) and gives its wait status.
int wait_status_of(const std::function<int()>& child) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) ::_exit(child());
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return status;
}

// Polls `requests` for up to 5 s.
bool seen_within_seconds(const StopRequests& requests) {
    for (int i = 0; i < 500 && !requests.requested(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return requests.requested();
}

constexpr int kNotSeen = 3, kLived = 4;

}  // namespace

TEST_CASE("SIGTERM or SIGINT while a StopRequests lives is a request the program reads, not its end", "[unit]") {
    for (const int signal_number : {SIGTERM, SIGINT}) {
        const int status = wait_status_of([signal_number] {
            receive_stop_signals_on_own_thread();
            const StopRequests requests;
            if (requests.requested()) return 1;
            ::kill(::getpid(), signal_number);
            return seen_within_seconds(requests) ? 0 : kNotSeen;
        });
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

TEST_CASE("with no StopRequests alive SIGTERM ends the program by the signal, and a new StopRequests starts clear", "[unit]") {
    const int status = wait_status_of([] {
        receive_stop_signals_on_own_thread();
        {
            const StopRequests first_run;
            ::kill(::getpid(), SIGTERM);
            if (!seen_within_seconds(first_run)) return kNotSeen;
        }
        if (StopRequests().requested()) return 1;   // the first run's request is not the next one's
        ::kill(::getpid(), SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        return kLived;
    });
    REQUIRE(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
}

TEST_CASE("a signal the program was started ignoring stays ignored when no StopRequests lives", "[unit]") {
    const int status = wait_status_of([] {
        std::signal(SIGINT, SIG_IGN);   // as `nohup` or a shell's `&` start a program
        receive_stop_signals_on_own_thread();
        ::kill(::getpid(), SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        return kLived;
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == kLived);
}

TEST_CASE("a StopRequests made while another lives shares its request (a comparison around its runs)", "[unit]") {
    const int status = wait_status_of([] {
        receive_stop_signals_on_own_thread();
        const StopRequests comparison;
        {
            const StopRequests first_run;
            ::kill(::getpid(), SIGTERM);
            if (!seen_within_seconds(first_run)) return kNotSeen;
        }
        const StopRequests next_run;
        return comparison.requested() && next_run.requested() ? 0 : 1;
    });
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
