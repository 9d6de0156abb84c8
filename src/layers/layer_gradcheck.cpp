// Building one registry layer for a gradcheck, checking it tensor by tensor, and printing the result.
#include "layers/layer_gradcheck.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "autograd/error.h"
#include "layers/module_gradcheck.h"

namespace tf {

namespace {

// B, T, S: small; T above the local_conv_mixer's default kernel, so every tap is reached; S ≠ T.
constexpr int64_t kBatch = 2, kTargetTime = 5, kSourceTime = 4;
const std::vector<std::string> kInputNames{"x", "memory"};

std::shared_ptr<SequenceLayer> build_layer(const LayerRegistry& registry, const LayerGradcheckOptions& options, Rng& init_rng) {
    if (!registry.contains(options.type)) {
        std::string known;
        for (const auto& name : registry.types()) known += (known.empty() ? "" : ", ") + name;
        throw ConfigError("gradcheck --layer: unknown layer type '" + options.type + "'; known: " + known);
    }
    if (options.keys.contains("type")) throw ConfigError("gradcheck --layer: \"type\" is given by --layer, not --set");
    config::Json block = options.keys;
    block["type"] = options.type;
    LayerBuildContext build{.width = options.width, .init_rng = &init_rng,
                            .dropout_rng = std::make_shared<Rng>(options.seed + 1), .init = {}, .dtype = DType::f64};
    try {
        auto layer = registry.create(block, "layer", build);
        layer->eval();  // no dropout: central differences need a deterministic function
        return layer;
    } catch (const ConfigError& error) {
        throw ConfigError("gradcheck --layer " + options.type + ": " + error.what() +
                          " (give the layer's keys with --set KEY=VALUE)");
    }
}

// The tensors the output ignores, named as the report names them ("x", "memory", a parameter).
// unreached() runs the first forward: a layer that refuses the inputs says so here.
std::vector<std::string> unreached_tensors(const SequenceLayer& layer, const DifferentiableFn& forward,
                                           const std::vector<Tensor>& inputs, const LayerGradcheckOptions& options) {
    try {
        std::vector<std::string> names;
        for (const auto& name : unreached(layer, forward, inputs))
            names.push_back(name.rfind("input ", 0) == 0 ? kInputNames.at(std::stoul(name.substr(6))) : name);
        return names;
    } catch (const InputError& error) {
        throw ValueError("gradcheck --layer " + options.type + ": the forward pass failed: " + error.what() +
                         (options.memory ? "" : " (a layer that reads context.memory needs --memory)"));
    }
}

// One line: the tensor, its shape, and how its gradient compared (the worst element's two values).
std::string describe_check(const LayerTensorCheck& check) {
    std::ostringstream line;
    line << "  " << std::left << std::setw(32) << check.name << std::setw(12) << to_string(check.shape);
    if (!check.reached)
        return line.str() + (check.name == "memory" ? "unused  the layer does not read context.memory"
                                                    : "FAIL    zero gradient everywhere: the output does not depend on it");
    const GradcheckResult& r = check.result;
    line.precision(6);
    line << (r.ok ? "ok      " : "FAIL    ") << r.checked << " elements; worst, element " << r.index << ": analytic "
         << r.analytic << ", numeric " << r.numeric;
    return line.str();
}

}  // namespace

bool LayerTensorCheck::ok() const {
    return reached ? result.ok && result.checked > 0 : name == "memory";
}

bool LayerGradcheckReport::ok() const {
    return std::all_of(tensors.begin(), tensors.end(), [](const LayerTensorCheck& check) { return check.ok(); });
}

LayerGradcheckReport gradcheck_layer(const LayerRegistry& registry, const LayerGradcheckOptions& options) {
    Rng rng(options.seed);
    const std::shared_ptr<SequenceLayer> layer = build_layer(registry, options, rng);
    std::vector<Tensor> inputs{Tensor::normal({kBatch, kTargetTime, options.width}, 0.0, 1.0, rng, DType::f64)};  // x
    if (options.memory) inputs.push_back(Tensor::normal({kBatch, kSourceTime, options.width}, 0.0, 1.0, rng, DType::f64));
    const bool causal = options.causal;
    const DifferentiableFn forward = [layer, causal](const std::vector<Tensor>& in) {
        SequenceContext context;
        context.causal = causal;
        if (in.size() > 1) context.memory = in[1];
        return (*layer)(in[0], context);
    };
    LayerGradcheckReport report;
    for (std::size_t k = 0; k < inputs.size(); ++k) report.tensors.push_back(LayerTensorCheck{kInputNames[k], inputs[k].shape()});
    for (const auto& [name, parameter] : layer->named_parameters()) report.tensors.push_back(LayerTensorCheck{name, parameter.shape()});
    for (const auto& name : unreached_tensors(*layer, forward, inputs, options))
        for (auto& check : report.tensors)
            if (check.name == name) check.reached = false;
    for (std::size_t k = 0; k < report.tensors.size(); ++k)
        if (report.tensors[k].reached) report.tensors[k].result = gradcheck_module_tensor(*layer, forward, inputs, k, options.tolerance);
    return report;
}

int print_layer_gradcheck(const LayerRegistry& registry, const LayerGradcheckOptions& options, std::ostream& out) {
    const LayerGradcheckReport report = gradcheck_layer(registry, options);
    const GradcheckOptions& tolerance = options.tolerance;
    out << "gradcheck --layer " << options.type << ": f64, x (" << kBatch << "," << kTargetTime << "," << options.width << ")"
        << (options.memory ? ", memory (" + std::to_string(kBatch) + "," + std::to_string(kSourceTime) + "," + std::to_string(options.width) + ")" : "")
        << (options.causal ? ", causal" : "") << "; eps " << tolerance.eps << ", atol " << tolerance.atol << ", rtol " << tolerance.rtol << "\n";
    std::size_t failed = 0;
    for (const auto& check : report.tensors) {
        out << describe_check(check) << "\n";
        failed += check.ok() ? 0 : 1;
    }
    out << options.type << ": " << (failed ? "FAIL, " + std::to_string(failed) + " of " : "ok, all ") << report.tensors.size()
        << " tensors " << (failed ? "do not match" : "match") << " central differences\n";
    return report.ok() ? 0 : 1;
}

}  // namespace tf
