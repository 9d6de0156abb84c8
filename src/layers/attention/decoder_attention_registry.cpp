// The table of RNN-decoder attentions.
#include "layers/attention/decoder_attention_registry.h"

namespace tf {

NamedTable<DecoderAttentionType>& decoder_attention_table() {
    // Additive attention's inner width A is the decoder's width, as in the reference workload W2.
    static NamedTable<DecoderAttentionType> table = {
        {"additive", {[](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<AdditiveAttention>(query, key, query, init, rng, dtype);
         }, "AdditiveAttention"}},
        {"luong_dot", {[](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<LuongAttention>(LuongAttention::Score::dot, query, key, init, rng, dtype);
         }}},
        {"luong_general", {[](int64_t query, int64_t key, const InitScheme& init, Rng& rng, DType dtype) {
             return std::make_shared<LuongAttention>(LuongAttention::Score::general, query, key, init, rng, dtype);
         }}},
    };
    return table;
}

const NamedTable<DecoderAttentionType>& decoder_attentions() { return decoder_attention_table(); }

std::vector<std::string> decoder_attention_names() { return names_of(decoder_attentions()); }

const DecoderAttentionType& decoder_attention(const std::string& name) {
    return entry_named(decoder_attentions(), name, "decoder attention");
}

}  // namespace tf
