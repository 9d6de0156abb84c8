// A table of (name, entry) pairs in the order configs and messages list them — the cell table, the
// decoder-attention table, the norm table: its names, the entry a name stands for, and an entry
// added for a while (a test's own cell or norm).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "autograd/error.h"

namespace tf {

template <class Entry>
using NamedTable = std::vector<std::pair<std::string, Entry>>;

template <class Entry>
std::vector<std::string> names_of(const NamedTable<Entry>& table) {
    std::vector<std::string> names;
    for (const auto& entry : table) names.push_back(entry.first);
    return names;
}

// The entry named `name`; ValueError naming `what` and the known names when there is none.
template <class Entry>
const Entry& entry_named(const NamedTable<Entry>& table, const std::string& name, const std::string& what) {
    for (const auto& entry : table)
        if (entry.first == name) return entry.second;
    std::string known;
    for (const std::string& each : names_of(table)) known += (known.empty() ? "" : ", ") + each;
    throw ValueError(what + " '" + name + "' is not one of " + known);
}

// Adds (name, entry) to `table` for this object's lifetime: a test registers its own kind in one
// line, and the table is as shipped again when the test ends. ValueError if the name is taken.
template <class Entry>
class ScopedTableEntry {
public:
    ScopedTableEntry(NamedTable<Entry>& table, const std::string& name, Entry entry) : table_(table), name_(name) {
        for (const auto& existing : table)
            if (existing.first == name) throw ValueError("'" + name + "' is already in the table");
        table_.emplace_back(name, std::move(entry));
    }
    ~ScopedTableEntry() {
        for (auto it = table_.begin(); it != table_.end(); ++it)
            if (it->first == name_) {
                table_.erase(it);
                return;
            }
    }
    ScopedTableEntry(const ScopedTableEntry&) = delete;
    ScopedTableEntry& operator=(const ScopedTableEntry&) = delete;

private:
    NamedTable<Entry>& table_;
    std::string name_;
};

}  // namespace tf
