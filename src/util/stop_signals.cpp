// The thread that receives SIGINT and SIGTERM (util/stop_signals.h says why no handler runs).
#include "util/stop_signals.h"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <thread>

namespace tf {

namespace {

std::atomic<int> g_listeners{0};       // StopRequests alive
std::atomic<int> g_requested{0};       // the signal that came while one was; 0 for none

sigset_t stop_signals() {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    return signals;
}

// A blocked signal is queued even where its action is "ignore", so the action the program started
// with is read here: `nohup` and a shell's `&` start programs ignoring SIGINT.
bool ignored_at_start(int signal_number) {
    struct sigaction action {};
    sigaction(signal_number, nullptr, &action);
    return action.sa_handler == SIG_IGN;
}

// Ends the program as the signal's default action does: unblocked on this thread alone, raised here.
[[noreturn]] void die_of(int signal_number) {
    std::signal(signal_number, SIG_DFL);
    sigset_t just_this;
    sigemptyset(&just_this);
    sigaddset(&just_this, signal_number);
    pthread_sigmask(SIG_UNBLOCK, &just_this, nullptr);
    raise(signal_number);
    std::_Exit(128 + signal_number);   // not reached: the default action of both is to terminate
}

void receive_forever(sigset_t signals, bool int_ignored, bool term_ignored) {
    for (;;) {
        int signal_number = 0;
        if (sigwait(&signals, &signal_number) != 0) continue;
        if (g_listeners > 0) {
            g_requested = signal_number;
        } else if (!(signal_number == SIGINT ? int_ignored : term_ignored)) {
            die_of(signal_number);
        }
    }
}

}  // namespace

void receive_stop_signals_on_own_thread() {
    const sigset_t signals = stop_signals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread(receive_forever, signals, ignored_at_start(SIGINT), ignored_at_start(SIGTERM)).detach();
}

StopRequests::StopRequests() {
    if (g_listeners++ == 0) g_requested = 0;   // one nested inside another shares its request
}

StopRequests::~StopRequests() { --g_listeners; }

bool StopRequests::requested() const { return g_requested != 0; }

int StopRequests::signal_number() const { return g_requested; }

}  // namespace tf
