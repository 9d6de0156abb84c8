// The single-process communicator (distributed/communicator.h): its sums are the values
// themselves, and abort_job returns to its caller — the library leaves ending the process to
// the program (cli/main.cpp), which exits with the code itself.
#include "catch.h"

#include <vector>

#include "distributed/communicator.h"

using namespace tf;

TEST_CASE("one process: abort_job returns, so the caller decides how the program ends", "[unit]") {
    const auto ranks = distributed::single_process();
    ranks->abort_job(2);   // a std::exit here would end this test binary and fail the run
    std::vector<float> values{1.5f, -2.0f};
    ranks->all_reduce_sum(values);
    CHECK(values == std::vector<float>{1.5f, -2.0f});
    CHECK(ranks->size() == 1);
}
