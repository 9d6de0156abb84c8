// The table of RNN-decoder attentions.
#include "layers/attention/decoder_attention_registry.h"

#include "autograd/error.h"

namespace tf {

const std::vector<std::pair<std::string, DecoderAttentionFactory>>& decoder_attentions() {
    // Additive attention's inner width A is the decoder's width, as in the reference workload W2.
    static const std::vector<std::pair<std::string, DecoderAttentionFactory>> table = {
        {"additive", [](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<AdditiveAttention>(query, key, query, init, rng, dtype);
         }},
        {"luong_dot", [](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<LuongAttention>(LuongAttention::Score::dot, query, key, init, rng, dtype);
         }},
        {"luong_general", [](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<LuongAttention>(LuongAttention::Score::general, query, key, init, rng, dtype);
         }},
    };
    return table;
}

std::vector<std::string> decoder_attention_names() {
    std::vector<std::string> names;
    for (const auto& [name, factory] : decoder_attentions()) names.push_back(name);
    return names;
}

const DecoderAttentionFactory& decoder_attention(const std::string& name) {
    for (const auto& [known, factory] : decoder_attentions())
        if (known == name) return factory;
    std::string known;
    for (const std::string& attention : decoder_attention_names()) known += (known.empty() ? "" : ", ") + attention;
    throw ValueError("decoder attention '" + name + "' is not one of " + known);
}

}  // namespace tf
