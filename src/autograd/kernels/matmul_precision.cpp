// The process-wide matmul precision and the CPU check behind bf16.
#include "autograd/kernels/matmul_precision.h"

#include <atomic>
#include <cstdlib>
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
// The default: native where the CPU has the instructions, unless TF_BF16=emulated asks otherwise.
Bf16Products default_bf16_products() {
    const char* asked = std::getenv("TF_BF16");
    if (asked && std::string(asked) != "emulated")
        throw ConfigError("TF_BF16: expected \"emulated\" (or no such variable), got \"" + std::string(asked) + "\"");
    return asked || !cpu_has_native_bf16() ? Bf16Products::emulated : Bf16Products::native;
}

std::atomic<Bf16Products>& bf16_products_setting() {
    static std::atomic<Bf16Products> setting{default_bf16_products()};
    return setting;
}
}  // namespace

MatmulPrecision matmul_precision() { return g_precision.load(std::memory_order_relaxed); }

Bf16Products bf16_products() { return bf16_products_setting().load(std::memory_order_relaxed); }

void set_bf16_products(Bf16Products products) {
    if (products == Bf16Products::native)
        if (const std::string reason = bf16_unsupported_reason(); !reason.empty()) throw ConfigError(reason);
    bf16_products_setting().store(products, std::memory_order_relaxed);
}

std::string bf16_unsupported_reason() {
    if (cpu_has_native_bf16()) return "";
    return "precision \"bf16\" needs a CPU with the AVX512-BF16 or AMX-BF16 instructions, and this one has neither"
           " (as oneDNN sees it: ONEDNN_MAX_CPU_ISA can hide them); emulated, bf16 is slower than fp32, so training"
           " refuses it: use \"precision\": \"fp32\"";
}

void set_matmul_precision(MatmulPrecision precision) { g_precision.store(precision, std::memory_order_relaxed); }

MatmulPrecisionScope::MatmulPrecisionScope(MatmulPrecision precision) : previous_(matmul_precision()) {
    set_matmul_precision(precision);
}
MatmulPrecisionScope::~MatmulPrecisionScope() { g_precision.store(previous_, std::memory_order_relaxed); }

}  // namespace tf::kernels
