// The attentions an RNN decoder can read the encoder with, by config name, one line each in
// decoder_attentions(): "additive" (Bahdanau et al. 2015), "luong_dot", "luong_general" (Luong et
// al. 2015). The RNN encoder-decoder builds its "attention" from this table, so a new scorer (a
// class deriving DecoderStepAttention) is one line here.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "layers/attention/additive_attention.h"
#include "util/named_table.h"

namespace tf {

// query_size: the decoder state's width; key_size: the encoder states' width.
using DecoderAttentionFactory = std::function<std::shared_ptr<DecoderStepAttention>(
    int64_t query_size, int64_t key_size, const InitScheme& init, Rng& rng, DType dtype)>;

struct DecoderAttentionType {
    DecoderAttentionFactory make;
    // The module the exported model.py builds for it (src/export/pytorch_model.py), under the same
    // parameter names; "" when model.py has none yet, and `export --to pytorch` refuses it.
    std::string pytorch_twin{};
};

// In the order configs and messages list them; a test may add its own entry for a while
// (ScopedTableEntry, util/named_table.h).
NamedTable<DecoderAttentionType>& decoder_attention_table();
const NamedTable<DecoderAttentionType>& decoder_attentions();
std::vector<std::string> decoder_attention_names();
// The entry named `name`; ValueError naming the known ones when there is none.
const DecoderAttentionType& decoder_attention(const std::string& name);

}  // namespace tf
