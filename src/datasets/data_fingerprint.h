// A fingerprint of the data a run trains on: the same examples, splits and vocabulary give the
// same number on any machine, whatever the data file's path. What the ranks of a data-parallel job
// compare before they train (train/same_run_on_ranks.h), and what a run records in its
// provenance.json so that `collect` can tell two students' data apart (train/provenance.h).
#pragma once
#include <string>

#include "datasets/dataset.h"

namespace tf::train {

// FNV-1a 64 (util/fnv1a.h) over each split's size and, example by example, the lengths and token
// ids of source and target; then the vocabulary's JSON. 16 lower-case hex digits.
std::string data_fingerprint(const Dataset& dataset);

}  // namespace tf::train
