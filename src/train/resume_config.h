// What a resumed run may change. A checkpoint's weights mean something only under the model, data,
// tokenizer, optimizer and seed they were trained with (two heads read as four is a silent wrong
// answer), so a resume may change only the budget, logging, checkpoint and decoding keys below.
#pragma once
#include <string>
#include <vector>

#include "config/json_reader.h"

namespace tf::train {

// The keys (dotted paths into the resolved config) a resume may change; an entry also covers
// every key under it ("decode" → decode.beam_size). docs/config.md, "Resuming a run", lists them.
extern const std::vector<std::string> kResumableKeys;

// Throws ConfigError naming `source` (the checkpoint) and the first key that differs between the
// resolved config the checkpoint was saved with and the one a run now has, unless the key is
// resumable. Both are resolved configs: every default is written out, so equal runs compare equal.
void check_resume_config(const config::Json& saved, const config::Json& now, const std::string& source);

}  // namespace tf::train
