// bench names the processor it measured: /proc/cpuinfo's fields, the core from the table, the
// vector units the kernels use and the L3 size, parsed from text written as Linux writes it.
#include "catch.h"

#include "analysis/machine/cpu_identity.h"

using namespace tf;

namespace {

std::string cpuinfo(const std::string& vendor, int family, int model, const std::string& name, const std::string& flags) {
    return "processor\t: 0\nvendor_id\t: " + vendor + "\ncpu family\t: " + std::to_string(family) +
           "\nmodel\t\t: " + std::to_string(model) + "\nmodel name\t: " + name + "\nstepping\t: 1\nflags\t\t: " + flags +
           "\n\nprocessor\t: 1\nvendor_id\t: SomethingElse\n";
}

}  // namespace

TEST_CASE("a Zen 5 EPYC is named with its core, its vector units and its L3", "[unit]") {
    const analysis::CpuIdentity cpu = analysis::parse_cpu_identity(
        cpuinfo("AuthenticAMD", 26, 2, "AMD EPYC", "fpu avx2 fma avx512f avx512bw avx512_bf16 avx512_vnni"), "32768K");
    CHECK(cpu.vendor == "AuthenticAMD");
    CHECK(cpu.family == 26);
    CHECK(cpu.model == 2);
    CHECK(cpu.core == "Zen 5");
    CHECK(cpu.vector_units == std::vector<std::string>{"AVX2", "AVX-512", "AVX512-BF16"});
    CHECK(cpu.l3_bytes == 32LL << 20);
    CHECK(analysis::describe(cpu) == "AMD EPYC (family 26, model 2: Zen 5), AVX2, AVX-512, AVX512-BF16, L3 32 MiB");
}

TEST_CASE("Zen 4 and Sapphire Rapids come from their model ranges, and AMX is named", "[unit]") {
    CHECK(analysis::parse_cpu_identity(cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC 9654", "avx2"), "").core == "Zen 4");
    CHECK(analysis::parse_cpu_identity(cpuinfo("AuthenticAMD", 25, 1, "AMD EPYC 7763", "avx2"), "").core == "Zen 3");
    const analysis::CpuIdentity xeon = analysis::parse_cpu_identity(
        cpuinfo("GenuineIntel", 6, 143, "Intel(R) Xeon(R) Platinum 8480+", "avx2 avx512f avx512_bf16 amx_bf16 amx_tile"), "107520K");
    CHECK(xeon.core == "Sapphire Rapids");
    CHECK(xeon.vector_units == std::vector<std::string>{"AVX2", "AVX-512", "AVX512-BF16", "AMX"});
    CHECK(xeon.l3_bytes == 105LL << 20);
}

TEST_CASE("a CPU outside the table, or missing files, still describes what is known", "[unit]") {
    const analysis::CpuIdentity unknown = analysis::parse_cpu_identity(cpuinfo("GenuineIntel", 6, 999, "Future Xeon", ""), "");
    CHECK(unknown.core.empty());
    CHECK(analysis::describe(unknown) == "Future Xeon (family 6, model 999)");
    const analysis::CpuIdentity nothing = analysis::parse_cpu_identity("", "");
    CHECK(nothing.family == -1);
    CHECK(analysis::describe(nothing) == "an unnamed CPU");
    CHECK(analysis::parse_cpu_identity("", "garbage").l3_bytes == 0);
}

TEST_CASE("this machine's CPU has a name and a family", "[unit]") {
    const analysis::CpuIdentity cpu = analysis::this_cpu();   // Linux, the only system tapeformer supports
    CHECK_FALSE(cpu.vendor.empty());
    CHECK(cpu.family > 0);
    CHECK(analysis::describe(cpu).find("family") != std::string::npos);
}
