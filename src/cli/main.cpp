// tapeformer: the command-line front door. Parses the subcommand with CLI11 and turns every
// error into a one-line message and an exit code — never a crash or a signal.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

#include "autograd/error.h"
#include "autograd/kernels/mode.h"
#include "cli/commands.h"
#include "distributed/communicator.h"
#include "util/stop_signals.h"

namespace {
// Two settings that the runtime libraries read before main() runs, so they are set here and the
// program starts again (once; a variable already in the environment is left as it is):
// - OpenMP threads that spin while they wait (libgomp's default) take the cores from anything
//   else on the machine — a build, a browser, a second test — and training slows many times over,
//   while sleeping waits cost little on an idle one. OMP_WAIT_POLICY=active in the environment
//   keeps spinning.
// - glibc keeps 7 freed blocks of each small size per thread for quick reuse; a decoding step
//   frees a few hundred small blocks (tensor handles' shapes) of a few sizes, and the rest would
//   go through the slower heap paths. 64 keeps them. Many more do harm: at 256 the blocks held
//   split the heap, and a training step's large tensors came back as fresh pages each step, faulted
//   in inside the products that write them (W1: about 1,800 page faults a step against 110, and its
//   N = 512 products at half speed; `perf stat -e page-faults`, bench/README.md).
void set_runtime_environment(char** argv) {
    bool changed = false;
    const auto set_unless_given = [&](const char* name, const char* value) {
        if (std::getenv(name)) return;
        setenv(name, value, 1);
        changed = true;
    };
    set_unless_given("OMP_WAIT_POLICY", "passive");
    set_unless_given("GLIBC_TUNABLES", "glibc.malloc.tcache_count=64");
    if (changed) execv("/proc/self/exe", argv);  // only returns on failure: then carry on as we are
}
// Under `mpirun -np N` only train and compare share their work out among the ranks; any other
// command would run N times over the same files.
void require_one_process_unless_shared(const CLI::App& app) {
    const int ranks = tf::distributed::launched_ranks();
    if (ranks <= 1) return;
    for (const CLI::App* command : app.get_subcommands()) {
        const std::string name = command->get_name();
        if (name != "train" && name != "compare")
            throw tf::ConfigError("`tapeformer " + name + "` runs in one process, but was started as " +
                                  std::to_string(ranks) + " (mpirun -np " + std::to_string(ranks) +
                                  "); only train and compare share their work among ranks: start it without mpirun");
    }
}
}  // namespace

int main(int argc, char** argv) {
    set_runtime_environment(argv);
    tf::receive_stop_signals_on_own_thread();   // before any other thread starts (util/stop_signals.h)
    CLI::App app{"tapeformer: train and take apart attention models and their RNN baselines."};
    app.set_version_flag("--version", std::string("tapeformer ") + TF_VERSION);
    int threads = 0;
    app.add_option("--threads", threads, "threads for kernels and oneDNN (default: a run config's `threads`, else all cores)")
        ->check(CLI::NonNegativeNumber);
    double rank_timeout = tf::distributed::kDefaultRankTimeoutSeconds;
    app.add_option("--rank-timeout", rank_timeout,
                   "under mpirun: seconds a rank waits for the others in one sum before it ends the job (0 = forever)")
        ->capture_default_str()->check(CLI::NonNegativeNumber);
    app.require_subcommand(1);
    int exit_code = 0;
    tf::cli::add_train_command(app, exit_code);
    tf::cli::add_eval_command(app, exit_code);
    tf::cli::add_decode_commands(app, exit_code);
    tf::cli::add_config_command(app, exit_code);
    tf::cli::add_analyze_command(app, exit_code);
    tf::cli::add_compare_command(app, exit_code);
    tf::cli::add_collect_command(app, exit_code);
    tf::cli::add_gradcheck_command(app, exit_code);
    tf::cli::add_bench_command(app, exit_code);
    tf::cli::add_tape_command(app, exit_code);
    tf::cli::add_export_command(app, exit_code);
    tf::cli::add_theorems_command(app, exit_code);
    app.parse_complete_callback([&] {
        if (threads > 0) tf::kernels::set_num_threads(threads);
        tf::distributed::set_rank_timeout(rank_timeout);
        require_one_process_unless_shared(app);
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& done) {
        return app.exit(done);
    } catch (const CLI::ParseError& error) {
        app.exit(error);
        return 2;
    } catch (const std::exception& error) {
        // A bad config, data file, checkpoint or argument value: exit 2; so is an allocation the
        // system refused outside tensor memory (which the memory limit checks first), since the
        // sizes come from the user's input. Anything else: exit 1.
        const bool out_of_memory = dynamic_cast<const std::bad_alloc*>(&error) != nullptr;
        const int code = dynamic_cast<const tf::InputError*>(&error) || out_of_memory ? 2 : 1;
        if (tf::distributed::launched_ranks() > 1 && tf::distributed::mpi_available()) {
            // The other ranks may be waiting for this one in a collective: take the whole job down.
            // One write, so two ranks' lines do not interleave.
            std::cerr << ("error (rank " + std::to_string(tf::distributed::world().rank()) + "): " + error.what() + "\n") << std::flush;
            tf::distributed::world().abort_job(code);   // under MPI, does not return
            return code;
        }
        std::cerr << "error: " << (out_of_memory ? std::string("out of memory: the system refused an allocation; ask for a "
                                                               "smaller model, batch, input or --probes")
                                                 : std::string(error.what()))
                  << "\n";
        return code;
    }
    return exit_code;
}
