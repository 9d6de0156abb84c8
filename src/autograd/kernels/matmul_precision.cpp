// The process-wide matmul precision and the CPU check behind bf16.
#include "autograd/kernels/matmul_precision.h"

#include <atomic>
#include <oneapi/dnnl/dnnl.hpp>

#include "autograd/error.h"

namespace tf::kernels {

namespace {
std::atomic<MatmulPrecision> g_precision{MatmulPrecision::fp32};

// oneDNN's ISA values are bit sets that grow with the instruction sets (avx512_core ⊂
// avx512_core_bf16 ⊂ avx512_core_amx), so "has bf16" is "contains avx512_core_bf16's bits".
bool cpu_has_native_bf16() {
    const auto bits = [](dnnl::cpu_isa isa) { return static_cast<unsigned>(isa); };
    const unsigned bf16 = bits(dnnl::cpu_isa::avx512_core_bf16);
    return (bits(dnnl::get_effective_cpu_isa()) & bf16) == bf16;
}
}  // namespace

MatmulPrecision matmul_precision() { return g_precision.load(std::memory_order_relaxed); }

std::string bf16_unsupported_reason() {
    if (cpu_has_native_bf16()) return "";
    return "precision \"bf16\" needs a CPU with the AVX512-BF16 or AMX-BF16 instructions, and this one has neither"
           " (as oneDNN sees it: ONEDNN_MAX_CPU_ISA can hide them); bf16 is not emulated, since emulation is slower"
           " than fp32: use \"precision\": \"fp32\"";
}

void set_matmul_precision(MatmulPrecision precision) {
    if (precision == MatmulPrecision::bf16)
        if (const std::string reason = bf16_unsupported_reason(); !reason.empty()) throw ConfigError(reason);
    g_precision.store(precision, std::memory_order_relaxed);
}

MatmulPrecisionScope::MatmulPrecisionScope(MatmulPrecision precision) : previous_(matmul_precision()) {
    set_matmul_precision(precision);
}
MatmulPrecisionScope::~MatmulPrecisionScope() { g_precision.store(previous_, std::memory_order_relaxed); }

}  // namespace tf::kernels
