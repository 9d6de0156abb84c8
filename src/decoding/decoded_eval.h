// eval's decoded half: the model writes its own output for every example of a split — greedy
// decoding, or beam search when the run's decode.beam_size is above 1 — and the text it wrote is
// scored against the target text (decoding/text_scores.h), beside the teacher-forced loss and
// accuracy, which only ask about the next token when every earlier one is given.
#pragma once
#include <string>
#include <vector>

#include "train/run_loader.h"
#include "decoding/text_scores.h"

namespace tf::train {

struct DecodedEvaluation {
    TextScores scores;
    std::vector<std::string> hypotheses, references;   // the decoded and the target text, one per example
    int64_t beam_size = 1;                             // 1: greedy
};

// Decodes `examples` (a split of run.dataset) in batches of the run's data.batch_size, as the run's
// decode section says. Not for a language model, which has no target to write (ValueError).
DecodedEvaluation decode_and_score(LoadedRun& run, const std::vector<Example>& examples);

}  // namespace tf::train
