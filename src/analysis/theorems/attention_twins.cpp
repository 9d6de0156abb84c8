// Building attention layers from another's weights, and reading a layer's heads.
#include "analysis/theorems/attention_twins.h"

#include <cmath>
#include <cstring>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "layers/attention/grouped_heads.h"

namespace tf {

namespace {

const Linear& projection(const MultiHeadAttention& layer, const std::string& name) {
    for (const auto& [child_name, child] : layer.children())
        if (const auto* linear = dynamic_cast<const Linear*>(child.get()); linear && child_name == name) return *linear;
    throw ValueError("project_heads: " + layer.name() + " has no projection '" + name + "'");
}

// (B, T, heads·D) → (B, heads, T, D)
Tensor split_heads(const Tensor& x, int64_t heads) {
    return permute(reshape(x, {x.size(0), x.size(1), heads, x.size(2) / heads}), {0, 2, 1, 3});
}

// The rows of each query head's key/value head (layers/attention/grouped_heads.h).
IndexTensor kv_head_of_each_head(int64_t heads, int64_t kv_heads) {
    std::vector<int64_t> kv_head_per_query_head;
    for (int64_t h = 0; h < heads; ++h) kv_head_per_query_head.push_back(kv_head_of(h, heads, kv_heads));
    return IndexTensor(kv_head_per_query_head);
}

// An f64 layer with `options` holding the weights `state`, in eval mode.
std::shared_ptr<MultiHeadAttention> layer_holding(const MultiHeadAttentionOptions& options,
                                                  const std::map<std::string, Tensor>& state) {
    Rng unused_init(0);  // every weight is overwritten by `state`
    auto layer = std::make_shared<MultiHeadAttention>(options, std::make_shared<Rng>(0), InitScheme{}, unused_init, DType::f64);
    layer->load_state_dict(state);
    layer->eval();
    return layer;
}

}  // namespace

std::shared_ptr<MultiHeadAttention> attention_with_weights(const MultiHeadAttention& source,
                                                           const MultiHeadAttentionOptions& options) {
    return layer_holding(options, source.state_dict());
}

std::shared_ptr<MultiHeadAttention> softmax_twin(const MultiHeadAttention& source) {
    const MultiHeadAttentionOptions& o = source.options();
    return attention_with_weights(
        source, {.d_model = o.d_model, .heads = o.heads, .kv_heads = o.kv_heads, .bias = o.bias, .temperature = o.temperature});
}

std::shared_ptr<MultiHeadAttention> mha_repeating_kv_heads(const MultiHeadAttention& grouped) {
    const MultiHeadAttentionOptions& o = grouped.options();
    const int64_t D = o.d_model / o.heads;
    std::vector<int64_t> rows;  // row r of query head h's projection = row r of kv head ⌊h·H_kv/H⌋'s
    for (const int64_t g : kv_head_of_each_head(o.heads, o.kv_heads).values)
        for (int64_t r = 0; r < D; ++r) rows.push_back(g * D + r);
    NoGradGuard no_grad;
    std::map<std::string, Tensor> state = grouped.state_dict();
    for (const std::string name : {"k_proj.weight", "k_proj.bias", "v_proj.weight", "v_proj.bias"})
        if (state.count(name)) state[name] = index_select(state[name], 0, IndexTensor(rows));
    MultiHeadAttentionOptions full = o;
    full.kv_heads = o.heads;
    return layer_holding(full, state);
}

void randomize_weights(Module& module, double std, Rng& rng) {
    for (auto& [name, parameter] : module.named_parameters()) {
        const Tensor values = Tensor::normal(parameter.shape(), 0.0, std, rng, parameter.dtype());
        Tensor target = parameter;
        std::memcpy(target.raw_data(), values.raw_data(), values.bytes());
    }
}

HeadProjections project_heads(const MultiHeadAttention& layer, const Tensor& x) {
    const MultiHeadAttentionOptions& o = layer.options();
    HeadProjections heads{.Q = split_heads(projection(layer, "q_proj")(x), o.heads),
                          .K = split_heads(projection(layer, "k_proj")(x), o.kv_heads),
                          .V = split_heads(projection(layer, "v_proj")(x), o.kv_heads),
                          .tau = o.temperature.value_or(std::sqrt(static_cast<double>(o.d_model / o.heads)))};
    if (o.kv_heads != o.heads) {
        const IndexTensor kv_head_of = kv_head_of_each_head(o.heads, o.kv_heads);
        heads.K = index_select(heads.K, 1, kv_head_of), heads.V = index_select(heads.V, 1, kv_head_of);
    }
    return heads;
}

const MultiHeadAttention* first_attention(const Module& model) {
    if (const auto* attention = dynamic_cast<const MultiHeadAttention*>(&model)) return attention;
    for (const auto& [name, child] : model.children())
        if (const MultiHeadAttention* found = first_attention(*child)) return found;
    return nullptr;
}

}  // namespace tf
