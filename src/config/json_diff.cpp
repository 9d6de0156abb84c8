// JSON documents compared key by key.
#include "config/json_diff.h"

#include <set>

#include "config/json_text.h"

namespace tf::config {

namespace {
std::string shown(const Json* value) { return value ? describe(*value) : "absent"; }

const Json* member(const Json& object, const std::string& key) {
    const auto found = object.find(key);
    return found == object.end() ? nullptr : &*found;
}

void collect(const Json* was, const Json* is, const std::string& prefix, std::vector<JsonChange>& changes) {
    if (was && is && was->is_object() && is->is_object()) {
        std::set<std::string> keys;   // both sides' keys, each once, in order
        for (const Json* side : {was, is})
            for (const auto& item : side->items()) keys.insert(item.key());
        for (const std::string& key : keys)
            collect(member(*was, key), member(*is, key), prefix.empty() ? key : prefix + "." + key, changes);
        return;
    }
    if (was && is && *was == *is) return;
    changes.push_back({prefix.empty() ? "(the whole document)" : prefix, shown(was), shown(is)});
}
}  // namespace

std::vector<JsonChange> json_changes(const Json* was, const Json* is, const std::string& prefix) {
    std::vector<JsonChange> changes;
    collect(was, is, prefix, changes);
    return changes;
}

}  // namespace tf::config
