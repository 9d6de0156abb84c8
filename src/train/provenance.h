// Where a run was trained and from what: the build's commit, the machine, and hashes of the
// resolved config and of the data. Written to the run directory's provenance.json at each start
// (a resume rewrites it: the commit and machine of the latest session), so that a grader can tell
// two runs apart and see whether config.resolved.json was edited after training. A run made
// before provenance.json existed has none: every field reads "unknown".
#pragma once
#include <cstdint>
#include <string>

#include "config/json_reader.h"
#include "datasets/dataset.h"

namespace tf::train {

inline constexpr const char* kUnknown = "unknown";

struct Provenance {
    std::string commit = kUnknown;     // `git describe --always --dirty` of the source tree at build time
    std::string hostname = kUnknown;
    std::string cpu = kUnknown;        // /proc/cpuinfo's "model name"
    int64_t cores = 0;                 // hardware threads the system reports; 0: unknown
    std::string config_hash = kUnknown;  // config_hash(resolved config)
    std::string data_hash = kUnknown;    // data_fingerprint(dataset), datasets/data_fingerprint.h
};

// FNV-1a 64 (util/fnv1a.h) of the config's canonical text — nlohmann's compact dump, keys sorted —
// as 16 lower-case hex digits. The same config gives the same hash however its file is indented.
std::string config_hash(const config::Json& resolved);

// This build, this machine, this config and data.
Provenance provenance_now(const config::Json& resolved, const Dataset& dataset);

// Writes provenance.json at `path` (atomically).
void write_provenance(const std::string& path, const Provenance& provenance);
// Reads it back; a file that is not there gives every field "unknown" (a run older than the file),
// one that is not a JSON object is a ConfigError naming it.
Provenance read_provenance(const std::string& path);

}  // namespace tf::train
