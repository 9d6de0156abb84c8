// Element types a Tensor can hold: f32 for speed, f64 for gradient checks and references.
#pragma once
#include <cstddef>
#include <string>

namespace tf {

enum class DType { f32, f64 };

inline std::string dtype_name(DType dtype) { return dtype == DType::f32 ? "f32" : "f64"; }
inline std::size_t dtype_size(DType dtype) { return dtype == DType::f32 ? 4 : 8; }

template <class T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() { return DType::f32; }
template <>
constexpr DType dtype_of<double>() { return DType::f64; }

// Calls fn(float{}) or fn(double{}) for the dtype, so one generic lambda serves both:
//   dispatch(x.dtype(), [&](auto zero) { using T = decltype(zero); ... });
template <class Fn>
decltype(auto) dispatch(DType dtype, Fn&& fn) {
    if (dtype == DType::f32) return fn(float{});
    return fn(double{});
}

}  // namespace tf
