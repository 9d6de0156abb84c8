// The layer registry: config "type" name → factory. The built-in layers are listed in one explicit
// function, register_builtin_layers (layers/builtin_layers.h); coursework adds its own layer with one
// line there (see docs/extending.md). No self-registering static objects: the linker silently drops
// those from static libraries.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/json_reader.h"
#include "layers/init.h"
#include "layers/sequence_layer.h"

namespace tf {

// What every factory may use besides its own JSON block.
class LayerRegistry;

struct LayerBuildContext {
    int64_t width = 0;                   // the model width C the layer reads and writes
    Rng* init_rng = nullptr;             // for initial weights
    std::shared_ptr<Rng> dropout_rng{};  // shared by every dropout in the model
    InitScheme init{};                   // the model's default initialisation
    DType dtype = DType::f32;
    const LayerRegistry* registry = nullptr;   // the registry building this layer (set by create)
};

// A sublayer a config chooses by name: its registry entry ({"type": ..., its keys}), the JSON path
// that names it in errors, and the registry that builds it. No entry means the owner's built-in default.
struct LayerChoice {
    config::Json entry{};
    std::string path{};
    const LayerRegistry* registry = nullptr;
    bool chosen() const { return !entry.is_null(); }
    // The choice under `key` of `config`, if the config has that key, to be built by `registry`.
    static LayerChoice read(config::JsonReader& config, const std::string& key, const LayerRegistry* registry);
    // Builds the chosen layer.
    std::shared_ptr<SequenceLayer> create(const LayerBuildContext& build) const;
};

// Reads the layer's keys from `config` (unknown keys are caught after the factory returns).
using LayerFactory = std::function<std::shared_ptr<SequenceLayer>(config::JsonReader& config, const LayerBuildContext& build)>;

class LayerRegistry {
public:
    // `pytorch_twin`: the module the exported model.py builds for this layer as a language model's
    // "block" (src/export/pytorch_model.py), under the same parameter names; "" when model.py has
    // none yet, and `export --to pytorch` refuses a model that names the layer.
    void add(const std::string& type, LayerFactory factory, const std::string& pytorch_twin = "");
    // Builds the layer described by `block` ({"type": ..., its keys}); `path` names it in errors.
    std::shared_ptr<SequenceLayer> create(const config::Json& block, const std::string& path,
                                          const LayerBuildContext& build) const;
    std::vector<std::string> types() const;
    bool contains(const std::string& type) const { return factories_.count(type) > 0; }
    // model.py's module for `type`, or "" (add's pytorch_twin).
    std::string pytorch_twin(const std::string& type) const;

private:
    std::map<std::string, LayerFactory> factories_;
    std::map<std::string, std::string> pytorch_twins_;
};

}  // namespace tf
