// The one place that knows which oneDNN generation the build found. Debian 12 ships oneDNN 2.6,
// Debian 13 ships 3.x; 3.0 removed the operation descriptors (`matmul::desc`), so creating a
// primitive descriptor is spelled differently. Everything else we use (memory, engine, stream,
// attributes, execute) is the same in both, and gemm.cpp calls only these to create one and to add
// a ReLU to it.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

namespace tf::kernels::onednn {

// A matmul primitive descriptor for C = op(A)·op(B) (+ attr's post-ops) on the CPU engine.
inline dnnl::matmul::primitive_desc matmul_primitive_desc(const dnnl::engine& engine,
                                                          const dnnl::memory::desc& a,
                                                          const dnnl::memory::desc& b,
                                                          const dnnl::memory::desc& c,
                                                          const dnnl::primitive_attr& attr) {
#if DNNL_VERSION_MAJOR >= 3
    return dnnl::matmul::primitive_desc(engine, a, b, c, attr);
#else
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, engine);
#endif
}

// The same with a bias, C = op(A)·op(B) + bias (+ post-ops).
inline dnnl::matmul::primitive_desc matmul_primitive_desc(const dnnl::engine& engine,
                                                          const dnnl::memory::desc& a,
                                                          const dnnl::memory::desc& b,
                                                          const dnnl::memory::desc& bias,
                                                          const dnnl::memory::desc& c,
                                                          const dnnl::primitive_attr& attr) {
#if DNNL_VERSION_MAJOR >= 3
    return dnnl::matmul::primitive_desc(engine, a, b, bias, c, attr);
#else
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, bias, c), attr, engine);
#endif
}

// Appends y = max(x, 0) to a primitive's post-ops (3.0 dropped the eltwise scale argument).
inline void append_relu(dnnl::post_ops& post_ops) {
#if DNNL_VERSION_MAJOR >= 3
    post_ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
#else
    post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
#endif
}

}  // namespace tf::kernels::onednn
