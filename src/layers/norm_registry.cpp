// The norm table.
#include "layers/norm_registry.h"

#include "layers/layer_norm.h"

namespace tf {

NamedTable<NormType>& norm_table() {
    static NamedTable<NormType> table = {
        {kDefaultNorm, {[](int64_t width, double eps, DType dtype) { return std::make_shared<LayerNorm>(width, eps, dtype); },
                        "nn.LayerNorm"}},
    };
    return table;
}

std::vector<std::string> norm_names() { return names_of(norm_table()); }

const NormType& norm_type(const std::string& name) { return entry_named(norm_table(), name, "norm"); }

}  // namespace tf
