// `eval`'s report on a loaded run, shared by the CLI (one JSON line) and the Python module (a dict).
#pragma once
#include <string>

#include "config/json_reader.h"
#include "train/run_loader.h"

namespace tf::train {

// The run's model on one split ("test", "valid" or "train"): step, split, the teacher-forced
// loss, perplexity, token and sequence accuracy and their counts, the run and checkpoint, and for
// a seq2seq run the scores of the text it decodes itself (decoding, exact_match, cer, chrf, bleu).
// ValueError for another split name, DataError for a split with no examples.
config::Json evaluation_report(LoadedRun& run, const std::string& run_dir, const std::string& split);

}  // namespace tf::train
