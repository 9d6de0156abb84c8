// Numerics checking (`--check-numerics`): while on, every op's output — and in backward every
// gradient — is checked for NaN and ∞ as it is produced, and the first bad value is reported with
// the op and the layer it happened in. Off by default: it costs a pass over every tensor.
#pragma once
#include <string>

#include "autograd/error.h"
#include "autograd/tensor.h"

namespace tf {

void set_check_numerics(bool on);
bool check_numerics();

// Layers push their dotted name while they run, so errors can say where an op was called:
// "decoder.layers.1.cross_attn".
class NameScope {
public:
    explicit NameScope(const std::string& name);
    ~NameScope();
    NameScope(const NameScope&) = delete;
    NameScope& operator=(const NameScope&) = delete;
};
std::string current_scope();

// Whether −∞ may stand in a tensor: masked_fill writes it on purpose (masked scores before a
// softmax), so its output allows it; anywhere else it is a fault, like NaN and +∞.
enum class NegativeInfinity { fault, allowed };

// Throws NumericsError if `values` holds NaN or +∞, or −∞ unless `negative_infinity` allows it.
void check_finite(const Tensor& values, const std::string& what, NegativeInfinity negative_infinity);

}  // namespace tf
