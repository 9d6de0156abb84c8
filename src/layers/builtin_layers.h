// The built-in layers a config can name, listed in one explicit function (docs/extending.md: a
// new layer is one line there). Coursework and tests may fill a registry of their own the same way.
#pragma once
#include "layers/registry.h"

namespace tf {

void register_builtin_layers(LayerRegistry& registry);

// The registry with every built-in layer, built once.
const LayerRegistry& builtin_layers();

}  // namespace tf
