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

// Throws NumericsError if `values` holds NaN or +∞, or −∞ where `allow_negative_infinity` is false
// (masked_fill writes −∞ on purpose: masked scores before a softmax).
void check_finite(const Tensor& values, const std::string& what, bool allow_negative_infinity);

}  // namespace tf
