// A table of (name, entry) pairs in the order configs and messages list them — the cell table, the
// decoder-attention table: its names, and the entry a name stands for.
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

}  // namespace tf
