// Comparing a run's saved config with the one it resumes under, key by key.
#include "train/resume_config.h"

#include <algorithm>

#include "autograd/error.h"

namespace tf::train {

const std::vector<std::string> kResumableKeys = {
    "threads",                         // how many cores compute the same sums
    "train.accumulate_steps",          // how many pieces one step's batch is computed in
    "train.max_steps",                 // the budget
    "train.max_minutes",
    "optimizer.schedule.total_steps",  // a schedule tied to max_steps follows a longer budget
    "train.log_every",                 // logging, evaluation and checkpoint cadence
    "train.eval_every",
    "train.eval_batches",
    "train.checkpoint_every",
    "train.keep_checkpoints",
    "decode",                          // how generate and reconstruct decode; training never reads it
};

namespace {
bool resumable(const std::string& key) {
    return std::any_of(kResumableKeys.begin(), kResumableKeys.end(), [&](const std::string& allowed) {
        return key == allowed || key.rfind(allowed + ".", 0) == 0;
    });
}

std::string shown(const config::Json* value) { return value ? config::describe(*value) : "absent"; }

// The first key under `prefix` whose values differ and may not; "" if there is none.
std::string first_forbidden_change(const config::Json* saved, const config::Json* now, const std::string& prefix,
                                   std::string& was, std::string& is) {
    if (!prefix.empty() && resumable(prefix)) return "";
    if (saved && now && saved->is_object() && now->is_object()) {
        for (const config::Json* side : {saved, now})
            for (const auto& item : side->items()) {
                const std::string& key = item.key();  // a plain name: clang before 16 cannot capture a structured binding
                const auto in = [&key](const config::Json* object) {
                    const auto found = object->find(key);
                    return found == object->end() ? nullptr : &*found;
                };
                const std::string found = first_forbidden_change(in(saved), in(now), prefix.empty() ? key : prefix + "." + key, was, is);
                if (!found.empty()) return found;
            }
        return "";
    }
    if (saved && now && *saved == *now) return "";
    was = shown(saved), is = shown(now);
    return prefix.empty() ? "(the whole config)" : prefix;
}

std::string joined(const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) text += (text.empty() ? "" : ", ") + key;
    return text;
}
}  // namespace

void check_resume_config(const config::Json& saved, const config::Json& now, const std::string& source) {
    std::string was, is;
    const std::string key = first_forbidden_change(&saved, &now, "", was, is);
    if (key.empty()) return;
    throw ConfigError(source + ": " + key + " was " + was + " when the run was saved and is " + is +
                      " now; a resumed run keeps its model, data, tokenizer and optimizer, and may change only " +
                      joined(kResumableKeys) + " (docs/config.md, \"Resuming a run\")");
}

}  // namespace tf::train
