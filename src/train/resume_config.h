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
// resumable. `saved` is read again as this version reads configs, so a key added since it was
// saved counts as its default there: runs outlive new keys. `now` is a resolved config.
void check_resume_config(const config::Json& saved, const config::Json& now, const std::string& source);

// --init: new weights may train on other data, with another optimizer or budget, but only as the
// model they were trained as. Throws ConfigError naming `source` and the first model key that differs.
void check_same_model(const config::Json& saved, const config::Json& now, const std::string& source);

}  // namespace tf::train
