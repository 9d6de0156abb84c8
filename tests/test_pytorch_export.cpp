// `export --to pytorch` on the C++ side: our parameters under model.py's torch.nn names (q, k and v
// packed into in_proj_weight in that order, the rest renamed one to one), and which model options
// model.py can rebuild. tests/export/pytorch_logits.sh runs the exported models in PyTorch.
#include "catch.h"

#include <set>

#include "autograd/ops.h"
#include "config/json_reader.h"
#include "export/pytorch_export.h"
#include "models/build.h"

using namespace tf;

namespace {

std::shared_ptr<SequenceModel> built(const nlohmann::json& section) {
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = 11;
    build.seed = 3;
    return build_model(read_model_config(reader), build);
}

const nlohmann::json kTransformer = {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1},
                                     {"decoder_layers", 1}, {"ffn_hidden", 16}, {"max_length", 12}, {"dropout", 0.0}};

}  // namespace

TEST_CASE("a transformer's parameters take model.py's names, q, k and v packed into in_proj in that order", "[unit]") {
    const std::shared_ptr<SequenceModel> model = built(kTransformer);
    std::map<std::string, Tensor> ours;
    for (const auto& [name, tensor] : model->named_parameters()) ours.emplace(name, tensor);
    const std::map<std::string, Tensor> theirs = pytorch_state_dict(*model);
    // Three attentions (encoder self, decoder self, decoder cross): each q, k, v weight and bias pair
    // becomes one in_proj weight and bias.
    CHECK(theirs.size() == ours.size() - 3 * 4);
    for (const auto& [name, tensor] : theirs) {
        INFO(name);
        for (const char* gone : {".q_proj.", ".k_proj.", ".v_proj.", ".o_proj.", ".cross_attn."}) CHECK(name.find(gone) == std::string::npos);
        CHECK(name.find("ffn") == std::string::npos);
    }
    const Tensor& packed = theirs.at("decoder.layers.0.multihead_attn.in_proj_weight");
    REQUIRE(packed.shape() == Shape{24, 8});
    const Tensor expected = concat({ours.at("decoder.layers.0.cross_attn.q_proj.weight"),
                                    ours.at("decoder.layers.0.cross_attn.k_proj.weight"),
                                    ours.at("decoder.layers.0.cross_attn.v_proj.weight")}, 0);
    for (int64_t i = 0; i < packed.numel(); ++i) CHECK(packed.data<float>()[i] == expected.data<float>()[i]);
    for (const char* name : {"src_embed.token.weight", "tgt_embed.token.weight", "encoder.layers.0.self_attn.in_proj_bias",
                             "encoder.layers.0.self_attn.out_proj.weight", "encoder.layers.0.linear1.weight",
                             "decoder.layers.0.norm3.bias", "decoder.norm.weight", "output.bias"})
        CHECK(theirs.count(name) == 1);
    CHECK(theirs.at("encoder.layers.0.linear2.weight").data<float>() == ours.at("encoder.layers.0.ffn.linear2.weight").data<float>());
}

TEST_CASE("an RNN's parameters keep their names, which are PyTorch's", "[unit]") {
    const std::shared_ptr<SequenceModel> model = built({{"type", "rnn_seq2seq"}, {"cell", "gru"}, {"embedding_size", 4},
                                                        {"hidden_size", 6}, {"attention", "additive"}});
    std::set<std::string> ours;
    for (const auto& [name, tensor] : model->named_parameters()) ours.insert(name);
    std::set<std::string> theirs;
    for (const auto& [name, tensor] : pytorch_state_dict(*model)) theirs.insert(name);
    CHECK(theirs == ours);
    CHECK(theirs.count("decoder_cell.weight_ih") == 1);
    CHECK(theirs.count("attention.W_k.bias") == 1);
}

TEST_CASE("export takes the options model.py has modules for and names the first one it does not", "[unit]") {
    const auto problem = [](nlohmann::json section, const std::string& key, const nlohmann::json& value) {
        section[key] = value;
        return pytorch_export_problem(section);
    };
    CHECK(pytorch_export_problem(kTransformer).empty());
    CHECK(problem(kTransformer, "positions", "learned").empty());
    CHECK(problem(kTransformer, "kv_heads", 2).empty());   // as many key/value heads as heads: plain attention
    CHECK(problem(kTransformer, "kv_heads", 1) == "model.kv_heads = 1 has no counterpart in the exported model.py");
    CHECK(problem(kTransformer, "positions", "rotary") == "model.positions = \"rotary\" has no counterpart in the exported model.py");
    CHECK_FALSE(problem(kTransformer, "ffn", {{"type", "swiglu"}}).empty());
    const nlohmann::json lm = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 2}};
    CHECK(problem(lm, "block", {{"type", "local_conv_mixer"}, {"kernel_size", 3}}).empty());   // written out in model.py
    CHECK_FALSE(problem(lm, "block", {{"type", "alibi_attention"}}).empty());
    const nlohmann::json rnn = {{"type", "rnn_seq2seq"}, {"cell", "lstm"}, {"attention", "none"}};
    CHECK(pytorch_export_problem(rnn).empty());
    CHECK_FALSE(problem(rnn, "attention", "luong_dot").empty());
    CHECK_FALSE(problem(rnn, "bidirectional_encoder", true).empty());
}
