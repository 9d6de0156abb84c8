#include "analysis/machine/cpu_identity.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "util/files.h"

namespace tf::analysis {

namespace {

// Cores by vendor, family and a range of models (AMD's Processor Programming References, Intel's
// Software Developer's Manual, vol. 4, table 2-1). A newer core is one row.
struct CoreRow {
    const char* vendor;
    int family, first_model, last_model;
    const char* core;
};
constexpr CoreRow kCores[] = {
    {"AuthenticAMD", 23, 0x00, 0x2F, "Zen / Zen+"},
    {"AuthenticAMD", 23, 0x30, 0xFF, "Zen 2"},
    {"AuthenticAMD", 25, 0x00, 0x0F, "Zen 3"},
    {"AuthenticAMD", 25, 0x10, 0x1F, "Zen 4"},
    {"AuthenticAMD", 25, 0x20, 0x5F, "Zen 3"},
    {"AuthenticAMD", 25, 0x60, 0x7F, "Zen 4"},
    {"AuthenticAMD", 25, 0xA0, 0xAF, "Zen 4"},
    {"AuthenticAMD", 26, 0x00, 0xFF, "Zen 5"},
    {"GenuineIntel", 6, 0x55, 0x55, "Skylake-SP / Cascade Lake"},
    {"GenuineIntel", 6, 0x6A, 0x6C, "Ice Lake-SP"},
    {"GenuineIntel", 6, 0x8F, 0x8F, "Sapphire Rapids"},
    {"GenuineIntel", 6, 0xCF, 0xCF, "Emerald Rapids"},
    {"GenuineIntel", 6, 0xAD, 0xAE, "Granite Rapids"},
};

// The flags that decide which kernels run, by the name `describe` gives them.
struct VectorUnit {
    const char* flag;
    const char* name;
};
constexpr VectorUnit kVectorUnits[] = {
    {"avx2", "AVX2"}, {"avx512f", "AVX-512"}, {"avx512_bf16", "AVX512-BF16"}, {"amx_bf16", "AMX"}};

// "key\t: value" → value, for the first line whose key is `key`.
std::string field(const std::string& cpuinfo, const std::string& key) {
    std::istringstream lines(cpuinfo);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        name.erase(name.find_last_not_of(" \t") + 1);
        if (name != key) continue;
        const std::size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return "";
}

int number_or_unknown(const std::string& text) {
    try {
        return text.empty() ? -1 : std::stoi(text);
    } catch (const std::exception&) {
        return -1;
    }
}

// sysfs writes cache sizes as "32768K" (or "32M").
long long cache_bytes(const std::string& size) {
    try {
        std::size_t end = 0;
        const long long value = std::stoll(size, &end);
        const char unit = end < size.size() ? size[end] : ' ';
        return unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
    } catch (const std::exception&) {
        return 0;
    }
}

// "" where Linux has no such file (a VM that does not describe its caches).
std::string read_if_present(const std::string& path) { return file_exists(path) ? read_file(path) : ""; }

}  // namespace

CpuIdentity parse_cpu_identity(const std::string& cpuinfo, const std::string& l3_size) {
    CpuIdentity cpu;
    cpu.model_name = field(cpuinfo, "model name");
    cpu.vendor = field(cpuinfo, "vendor_id");
    cpu.family = number_or_unknown(field(cpuinfo, "cpu family"));
    cpu.model = number_or_unknown(field(cpuinfo, "model"));
    for (const CoreRow& row : kCores)
        if (cpu.vendor == row.vendor && cpu.family == row.family && cpu.model >= row.first_model && cpu.model <= row.last_model)
            cpu.core = row.core;
    std::set<std::string> flags;
    std::istringstream words(field(cpuinfo, "flags"));
    for (std::string flag; words >> flag;) flags.insert(flag);
    for (const VectorUnit& unit : kVectorUnits)
        if (flags.count(unit.flag)) cpu.vector_units.push_back(unit.name);
    cpu.l3_bytes = cache_bytes(l3_size);
    return cpu;
}

CpuIdentity this_cpu() {
    std::string l3 = read_if_present("/sys/devices/system/cpu/cpu0/cache/index3/size");
    l3.erase(std::remove(l3.begin(), l3.end(), '\n'), l3.end());
    return parse_cpu_identity(read_if_present("/proc/cpuinfo"), l3);
}

std::string describe(const CpuIdentity& cpu) {
    std::string text = cpu.model_name.empty() ? "an unnamed CPU" : cpu.model_name;
    if (cpu.family >= 0)
        text += " (family " + std::to_string(cpu.family) + ", model " + std::to_string(cpu.model) +
                (cpu.core.empty() ? "" : ": " + cpu.core) + ")";
    for (const std::string& unit : cpu.vector_units) text += ", " + unit;
    if (cpu.l3_bytes > 0) text += ", L3 " + std::to_string(cpu.l3_bytes >> 20) + " MiB";
    return text;
}

}  // namespace tf::analysis
