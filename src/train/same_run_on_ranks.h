// Under mpirun every rank must train the same run: ranks that read different configs or data would
// sum gradients of different models (different sizes corrupt memory in the all-reduce) or train a
// meaningless average without a word. Before the model is built, rank 0's config and a fingerprint
// of its data go to every rank, and each compares them with its own.
#pragma once
#include "config/json_reader.h"
#include "distributed/communicator.h"
#include "datasets/dataset.h"

namespace tf::train {

// Every rank calls it with its resolved config and data; when any rank's differ from rank 0's,
// every rank throws a ConfigError (exit 2): the differing ranks name the keys, the others point to
// them. `threads` may differ (each machine its cores). One process: returns at once.
void require_same_run_on_every_rank(distributed::Communicator& ranks, const config::Json& resolved, const Dataset& dataset);

}  // namespace tf::train
