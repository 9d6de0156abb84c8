// The norms a transformer config can name ("norm": "layer_norm"), one line each in norm_table().
// Every norm of the transformer blocks and of the stacks' final norm is built from this table, so a
// new norm (a class deriving Norm, layers/norm.h) is one line there and works in "transformer",
// "lm" and a "transformer_encoder_block"/"transformer_decoder_block" of the layer registry.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/dtype.h"
#include "layers/norm.h"
#include "util/named_table.h"

namespace tf {

struct NormType {
    // The norm over the last axis of width `width`; `eps` is the config's norm_eps.
    std::function<std::shared_ptr<Norm>(int64_t width, double eps, DType dtype)> make;
    // The module the exported model.py builds for it (src/export/pytorch_model.py), under the same
    // parameter names; "" when model.py has none yet, and `export --to pytorch` refuses the norm.
    std::string pytorch_twin{};
};

// The default every run saved before the choice existed used.
inline const std::string kDefaultNorm = "layer_norm";

// The table in the order configs and messages list them; a test may add its own entry for a while
// (ScopedTableEntry, util/named_table.h).
NamedTable<NormType>& norm_table();
std::vector<std::string> norm_names();
// The entry named `name`; ValueError naming the known norms when there is none.
const NormType& norm_type(const std::string& name);

}  // namespace tf
