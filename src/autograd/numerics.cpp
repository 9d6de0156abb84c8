// The numerics switch, the scope stack and the finite check.
#include "autograd/numerics.h"

#include <cmath>
#include <vector>

namespace tf {

namespace {
bool g_check_numerics = false;
thread_local std::vector<std::string> g_scopes;
}  // namespace

void set_check_numerics(bool on) { g_check_numerics = on; }
bool check_numerics() { return g_check_numerics; }

NameScope::NameScope(const std::string& name) { g_scopes.push_back(name); }
NameScope::~NameScope() { g_scopes.pop_back(); }

std::string current_scope() { return g_scopes.empty() ? std::string() : g_scopes.back(); }

void check_finite(const Tensor& values, const std::string& what, NegativeInfinity negative_infinity) {
    const bool allow_negative_infinity = negative_infinity == NegativeInfinity::allowed;
    dispatch(values.dtype(), [&](auto zero) {
        using T = decltype(zero);
        const T* data = values.data<T>();
        for (int64_t i = 0; i < values.numel(); ++i) {
            const T v = data[i];
            if (std::isfinite(v) || (allow_negative_infinity && std::isinf(v) && v < 0)) continue;
            const std::string scope = current_scope();
            throw NumericsError(what + (scope.empty() ? "" : " in " + scope) + " produced " +
                                (std::isnan(v) ? "NaN" : (v > 0 ? "+inf" : "-inf")) + " at element " +
                                std::to_string(i) + " of " + to_string(values.shape()));
        }
    });
}

}  // namespace tf
