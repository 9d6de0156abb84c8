// Where two JSON documents differ, key by key: what a resume, an --init and the ranks of a
// data-parallel job check before they trust that two configs describe the same run.
#pragma once
#include <string>
#include <vector>

#include "config/json_reader.h"

namespace tf::config {

struct JsonChange {
    std::string key;       // the dotted path ("model.heads"); `prefix`, or "(the whole document)", at the top
    std::string was, is;   // each side's value as describe() shows it, or "absent"
};

// Every key whose values differ, descending into objects present on both sides, in key order; a
// null side is a document that is absent. `prefix` names the documents' own place ("model").
std::vector<JsonChange> json_changes(const Json* was, const Json* is, const std::string& prefix = "");

}  // namespace tf::config
