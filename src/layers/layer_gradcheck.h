// `tapeformer gradcheck --layer TYPE`: any registered layer, built from {"type": TYPE} plus the
// caller's keys at a small width in f64, held to central differences over its input x (and the
// encoder memory, if asked) and every parameter — one result per tensor.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "layers/registry.h"

namespace tf {

struct LayerGradcheckOptions {
    std::string type{};
    config::Json keys = config::Json::object();  // the layer's other keys, e.g. {"heads": 2}
    int64_t width = 4;                           // C: x is (2, 5, C), the memory (2, 4, C)
    bool causal = false;                         // SequenceContext::causal
    bool memory = false;                         // also pass an encoder memory: cross-attention
    uint64_t seed = 1;                           // initial weights and inputs
    GradcheckOptions tolerance{};
};

struct LayerTensorCheck {
    LayerTensorCheck(std::string tensor_name, Shape tensor_shape) : name(std::move(tensor_name)), shape(std::move(tensor_shape)) {}
    std::string name;         // "x", "memory", or a parameter's dotted name
    Shape shape;
    bool reached = true;      // false: its gradient is zero everywhere, so the output ignores it
    GradcheckResult result;   // when reached
    // Reached and within tolerance; only a memory the layer does not read may be unreached.
    bool ok() const;
};

struct LayerGradcheckReport {
    std::vector<LayerTensorCheck> tensors;
    bool ok() const;  // every tensor's ok()
};

// Throws ConfigError for an unknown type (listing the registered ones) or a bad or missing layer key
// (naming it), and ShapeError or ValueError where the layer refuses the inputs.
LayerGradcheckReport gradcheck_layer(const LayerRegistry& registry, const LayerGradcheckOptions& options);

// Runs gradcheck_layer, prints a header and one line per tensor, and returns the exit code:
// 0 when every tensor matches, 1 on a mismatch or a parameter the output does not reach.
int print_layer_gradcheck(const LayerRegistry& registry, const LayerGradcheckOptions& options, std::ostream& out);

}  // namespace tf
