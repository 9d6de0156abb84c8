// Which processor a benchmark ran on, read from Linux's /proc/cpuinfo and sysfs, so every figure
// `bench` prints names its machine: a fraction of a peak means little without the core behind it
// (a Zen 4 core does 32 f32 FLOPs a cycle, a Zen 5 core 64).
#pragma once

#include <string>
#include <vector>

namespace tf::analysis {

struct CpuIdentity {
    std::string model_name;        // "AMD EPYC", "Intel(R) Xeon(R) Platinum 8480+", … ("" when unknown)
    std::string vendor;            // "AuthenticAMD", "GenuineIntel"
    int family = -1, model = -1;   // the CPUID family and model (decimal, as /proc/cpuinfo prints them)
    std::string core;              // the core's name from the table in cpu_identity.cpp ("" when not in it)
    std::vector<std::string> vector_units;   // the instruction sets the kernels use: AVX2, AVX-512, AVX512-BF16, AMX
    long long l3_bytes = 0;        // the last-level cache (0 when unknown)
};

// Parses /proc/cpuinfo's text (its first processor) and an L3 size in sysfs form ("32768K").
CpuIdentity parse_cpu_identity(const std::string& cpuinfo, const std::string& l3_size);

// This machine's (empty fields where Linux's files are missing).
CpuIdentity this_cpu();

// "AMD EPYC (family 26, model 2: Zen 5), AVX2, AVX-512, AVX512-BF16, L3 32 MiB"
std::string describe(const CpuIdentity& cpu);

}  // namespace tf::analysis
