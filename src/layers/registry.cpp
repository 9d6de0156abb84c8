// The layer registry.
#include "layers/registry.h"

#include "autograd/error.h"

namespace tf {

void LayerRegistry::add(const std::string& type, LayerFactory factory, const std::string& pytorch_twin) {
    if (factories_.count(type)) throw ValueError("LayerRegistry: type '" + type + "' is registered twice");
    factories_[type] = std::move(factory);
    if (!pytorch_twin.empty()) pytorch_twins_[type] = pytorch_twin;
}

std::string LayerRegistry::pytorch_twin(const std::string& type) const {
    const auto found = pytorch_twins_.find(type);
    return found == pytorch_twins_.end() ? "" : found->second;
}

std::vector<std::string> LayerRegistry::types() const {
    std::vector<std::string> names;
    for (const auto& [name, unused] : factories_) names.push_back(name);
    return names;
}

std::shared_ptr<SequenceLayer> LayerRegistry::create(const config::Json& block, const std::string& path,
                                                     const LayerBuildContext& build) const {
    config::JsonReader reader(block, path);
    const std::string type = reader.choice("type", types());
    LayerBuildContext built_here = build;
    built_here.registry = this;   // a layer's own chosen sublayers come from the same registry
    auto layer = factories_.at(type)(reader, built_here);
    reader.finish();
    return layer;
}

LayerChoice LayerChoice::read(config::JsonReader& config, const std::string& key, const LayerRegistry* registry) {
    if (!config.has(key)) return {};
    return {config.raw(key), config.path_of(key), registry};
}

std::shared_ptr<SequenceLayer> LayerChoice::create(const LayerBuildContext& build) const {
    if (!registry) throw ValueError(path + ": a chosen layer with no registry to build it");
    return registry->create(entry, path, build);
}

}  // namespace tf
