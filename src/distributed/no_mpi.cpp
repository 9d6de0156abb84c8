// world() in a build without MPI (CMake found no MPI): one process, and a clear refusal when a
// launcher started several.
#include "autograd/error.h"
#include "distributed/communicator.h"

namespace tf::distributed {

bool mpi_available() { return false; }

std::string mpi_description() {
    return "none: this build has no MPI (install libopenmpi-dev and openmpi-bin, as scripts/setup.sh does, and rebuild)";
}

Communicator& world() {
    if (launched_ranks() > 1)
        throw ConfigError("started as " + std::to_string(launched_ranks()) + " processes by mpirun or srun, but MPI is " +
                          mpi_description());
    static std::unique_ptr<Communicator> communicator = single_process();
    return *communicator;
}

}  // namespace tf::distributed
