// The table of gradient checks: one or more small f64 cases per op, each a function and its inputs.
// `tapeformer gradcheck [op]` runs it, and so does the test suite (which also checks that every op
// in kOpNames has a case here, and that the case really records that op).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"

namespace tf {

struct OpCheck {
    std::string op;       // the op it exercises (a name from kOpNames, or a composite: mean, split, embedding)
    std::string variant;  // what this case covers, e.g. "broadcast (2,3) + (3)"
    std::function<std::vector<Tensor>()> make_inputs;  // f64, deterministic
    DifferentiableFn fn;
};

const std::vector<OpCheck>& op_checks();

}  // namespace tf
