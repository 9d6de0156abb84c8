// Recording and reading a run's provenance.
#include "train/provenance.h"

#include <unistd.h>

#include <climits>
#include <fstream>
#include <thread>

#include "build_commit.h"   // generated at every build (cmake/build_commit.cmake)
#include "config/json_bytes.h"
#include "config/json_file.h"
#include "datasets/data_fingerprint.h"
#include "util/files.h"
#include "util/fnv1a.h"

namespace tf::train {

namespace {

std::string this_hostname() {
    char name[HOST_NAME_MAX + 1] = {};
    if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return kUnknown;
    return name;
}

// The first "model name : …" line of /proc/cpuinfo (x86; other CPUs, or no /proc: unknown).
std::string this_cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
        if (!line.starts_with("model name")) continue;
        const std::size_t colon = line.find(':');
        const std::size_t start = colon == std::string::npos ? std::string::npos : line.find_first_not_of(" \t", colon + 1);
        if (start != std::string::npos) return line.substr(start);
    }
    return kUnknown;
}

std::string text_or_unknown(const config::Json& object, const std::string& key) {
    const auto found = object.find(key);
    if (found == object.end()) return kUnknown;
    return found->is_string() ? found->get<std::string>() : kUnknown;
}

}  // namespace

std::string config_hash(const config::Json& resolved) {
    Fnv1a64 hash;
    hash.add_bytes(resolved.dump());
    return hash.hex();
}

Provenance provenance_now(const config::Json& resolved, const Dataset& dataset) {
    return {TF_BUILD_COMMIT, this_hostname(), this_cpu_model(), std::thread::hardware_concurrency(), config_hash(resolved),
            data_fingerprint(dataset)};
}

void write_provenance(const std::string& path, const Provenance& provenance) {
    config::Json machine = config::Json::object();
    config::set_text_field(machine, "hostname", provenance.hostname);   // bytes the system gave: made valid UTF-8
    config::set_text_field(machine, "cpu", provenance.cpu);
    machine["cores"] = provenance.cores;
    config::Json file = {{"commit", provenance.commit}, {"machine", machine}, {"config_fnv1a64", provenance.config_hash},
                         {"data_fnv1a64", provenance.data_hash}};
    write_file_atomic(path, file.dump(2) + "\n");
}

Provenance read_provenance(const std::string& path) {
    Provenance provenance;
    if (!file_exists(path)) return provenance;
    const config::Json file = config::load_json_file(path);
    if (!file.is_object()) throw ConfigError(path + ": expected a JSON object (a run's provenance)");
    const config::Json machine = file.contains("machine") && file["machine"].is_object() ? file["machine"] : config::Json::object();
    provenance.commit = text_or_unknown(file, "commit");
    provenance.hostname = text_or_unknown(machine, "hostname");
    provenance.cpu = text_or_unknown(machine, "cpu");
    if (machine.contains("cores") && machine["cores"].is_number_unsigned()) provenance.cores = machine["cores"].get<int64_t>();
    provenance.config_hash = text_or_unknown(file, "config_fnv1a64");
    provenance.data_hash = text_or_unknown(file, "data_fnv1a64");
    return provenance;
}

}  // namespace tf::train
