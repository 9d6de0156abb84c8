// `export --to pytorch` on the C++ side: our parameters under model.py's torch.nn names (q, k and v
// packed into in_proj_weight in that order, the rest renamed one to one), and which model options
// model.py can rebuild — read from the tables' PyTorch twins, so a cell added in one line is
// refused; model.py's tokenizer against tapeformer's, and its one-line hint without PyTorch.
// tests/export/pytorch_logits.sh runs the exported models in PyTorch.
#include "catch.h"

#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "autograd/ops.h"
#include "config/json_reader.h"
#include "export/pytorch_export.h"
#include "layers/attention/decoder_attention_registry.h"
#include "layers/norm_registry.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/builtin_layers.h"
#include "models/build.h"
#include "run_helpers.h"
#include "split_batch_runs.h"
#include "train/trainer.h"
#include "datasets/tokenizer.h"

namespace tf {
extern const char* const kPytorchModelPy;   // src/export/pytorch_model.py, as export writes it
}

using namespace tf;

namespace {

std::shared_ptr<SequenceModel> built(const nlohmann::json& section) {
    config::JsonReader reader(section, "model");
    ModelBuildContext build;
    build.vocab_size = 11;
    build.seed = 3;
    return build_model(read_model_config(reader), build);
}

struct Ran {
    int exit_code = -1;
    std::string output;   // stdout and stderr together
};

// Debian's python3 (where python3-torch installs torch) running `script`, to the end.
Ran run_python(const std::string& script) {
    const std::string command = "/usr/bin/python3 -c '" + script + "' 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    Ran ran;
    char buffer[4096];
    for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) ran.output.append(buffer, n);
    const int status = pclose(pipe);
    ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return ran;
}

std::string hex_of(const std::string& bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (const char byte : bytes) hex += {kDigits[static_cast<unsigned char>(byte) >> 4], kDigits[byte & 0xF]};
    return hex;
}

ModelConfig model_config(const nlohmann::json& section) {
    config::JsonReader reader(section, "model");
    return read_model_config(reader);
}

// The end of every refusal of a kind whose table entry has no PyTorch twin.
const std::string kNoTwin =
    " has no PyTorch twin yet (give its table entry one and write that module in src/export/pytorch_model.py)";

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
        return pytorch_export_problem(model_config(section));
    };
    CHECK(pytorch_export_problem(model_config(kTransformer)).empty());
    CHECK(problem(kTransformer, "positions", "learned").empty());
    CHECK(problem(kTransformer, "norm", "layer_norm").empty());
    CHECK(problem(kTransformer, "kv_heads", 2).empty());   // as many key/value heads as heads: plain attention
    CHECK(problem(kTransformer, "kv_heads", 1) == "model.kv_heads = 1 has no counterpart in the exported model.py");
    CHECK(problem(kTransformer, "ffn", {{"type", "swiglu"}}) == "model.ffn: layer 'swiglu'" + kNoTwin);
    CHECK(problem(kTransformer, "self_attention", {{"type", "alibi_attention"}}) == "model.self_attention: layer 'alibi_attention'" + kNoTwin);
    const nlohmann::json lm = {{"type", "lm"}, {"d_model", 8}, {"heads", 2}, {"layers", 2}};
    CHECK(problem(lm, "block", {{"type", "local_conv_mixer"}, {"kernel_size", 3}}).empty());   // written out in model.py
    CHECK(problem(lm, "block", {{"type", "alibi_attention"}}) == "model.block: layer 'alibi_attention'" + kNoTwin);
    const nlohmann::json rnn = {{"type", "rnn_seq2seq"}, {"cell", "lstm"}, {"attention", "none"}};
    CHECK(pytorch_export_problem(model_config(rnn)).empty());
    CHECK(problem(rnn, "attention", "additive").empty());
    CHECK(problem(rnn, "attention", "luong_dot") == "model.attention: decoder attention 'luong_dot'" + kNoTwin);
    CHECK(problem(rnn, "bidirectional_encoder", true) == "model.bidirectional_encoder = true has no counterpart in the exported model.py");
}

TEST_CASE("every PyTorch twin the tables register is a module model.py writes", "[unit]") {
    // What model.py can build is what the tables say it can: each twin must be in the file.
    std::vector<std::pair<std::string, std::string>> twins;   // kind, twin
    for (const auto& [cell, type] : recurrent_cells()) twins.emplace_back(cell, type.pytorch_twin);
    for (const auto& [attention, type] : decoder_attentions()) twins.emplace_back(attention, type.pytorch_twin);
    for (const auto& [norm, type] : norm_table()) twins.emplace_back(norm, type.pytorch_twin);
    for (const std::string& layer : builtin_layers().types()) twins.emplace_back(layer, builtin_layers().pytorch_twin(layer));
    const std::string model_py = kPytorchModelPy;
    int64_t with_twin = 0;
    for (const auto& [kind, twin] : twins) {
        INFO(kind << " → " << twin);
        if (twin.empty()) continue;
        ++with_twin;
        CHECK(model_py.find(twin) != std::string::npos);
    }
    // rnn, gru, lstm; additive attention; layer norm; the convolution mixer.
    CHECK(with_twin == 6);
}

TEST_CASE("a recurrent cell registered in one line trains, and export refuses it: it has no PyTorch twin yet", "[integration]") {
    // A student's new cell: one table line (here the GRU's cell under a new name, without a twin).
    const ScopedTableEntry<RecurrentCellType> cell(recurrent_cell_table(), "student_cell", {recurrent_cell("gru").make});
    const nlohmann::json rnn = {{"type", "rnn_seq2seq"}, {"cell", "student_cell"}, {"embedding_size", 4}, {"hidden_size", 6}};
    test::TempDir dir("tapeformer-export-cell");
    train::train(test::pieces_run(rnn, 2), {.run_dir = dir / "run", .quiet = true});
    train::LoadedRun run = train::load_run(dir / "run", "latest", train::RunData::vocabulary);
    const std::string expected = "export --to pytorch: model.cell: recurrent cell 'student_cell'" + kNoTwin + " (docs/models.md)";
    REQUIRE_THROWS_AS(export_to_pytorch(run, dir / "run", dir / "exported", 2, false), ValueError);
    REQUIRE_THROWS_WITH(export_to_pytorch(run, dir / "run", dir / "exported", 2, false), expected);
    CHECK(test::read_text(dir / "exported/model.py").empty());   // nothing written
}

// Texts that exercise each rule of the tokenizers: multi-byte and malformed UTF-8, a lone
// continuation byte, words with apostrophes and hyphens, runs of one mark, quotes and brackets,
// tabs and line breaks, runs of spaces (byte-pair chunks), digits, and text the vocabulary lacks.
const std::vector<std::string> kTexts = {
    "the cat  sat on the mat.\n", "don't jag-time -- now... \"quoted\" (and [this])", "café — naïve\tzoë",
    std::string("bad \xff\xfe bytes \xc3 and \x80 alone"), "12 34 5 99999999999999999999 x7", "  \n\n  leading", "",
    "ZZZ qqq unknown words?!", "the the the cat cat"};

TEST_CASE("model.py's encode and decode give tapeformer's ids and text for char, word, bpe and ids vocabularies", "[integration]") {
    const std::vector<std::string> corpus = {"the cat sat on the mat. the cat sat.\n", "don't jag-time -- now... \"quoted\"",
                                             "café — naïve\tzoë", "12 34 5"};
    const std::vector<train::Tokenizer> tokenizers = {
        train::Tokenizer::build(corpus, train::TokenizerKind::character), train::Tokenizer::build(corpus, train::TokenizerKind::word),
        train::Tokenizer::train_bpe(corpus, train::kNumSpecial + 256 + 30), train::Tokenizer::ids(40)};
    for (const train::Tokenizer& tokenizer : tokenizers) {
        INFO(name_of(tokenizer.kind()));
        test::TempDir dir;
        test::write_text(dir / "model.py", kPytorchModelPy);
        tokenizer.save(dir / "vocab.json");
        nlohmann::json hex_texts = nlohmann::json::array();
        for (const std::string& text : kTexts) hex_texts.push_back(hex_of(text));
        test::write_text(dir / "texts.json", hex_texts.dump());
        // One line of JSON per text: [encode(text), decode(encode(text)) as hex]
        const Ran ran = run_python("import json, sys\nsys.path.insert(0, \"" + dir.path() + "\")\nimport model\n"
                                   "v = model.load_vocabulary(\"" + dir.path() + "\")\n"
                                   "for h in json.load(open(\"" + (dir / "texts.json") + "\")):\n"
                                   "    ids = v.encode(bytes.fromhex(h))\n"
                                   "    print(json.dumps([ids, v.decode(ids).encode(\"utf-8\", \"surrogateescape\").hex()]))\n");
        INFO(ran.output);
        REQUIRE(ran.exit_code == 0);
        std::istringstream lines(ran.output);
        for (const std::string& text : kTexts) {
            INFO("text " << nlohmann::json(hex_of(text)));
            std::string line;
            REQUIRE(std::getline(lines, line));
            const nlohmann::json got = nlohmann::json::parse(line);
            const std::vector<int64_t> ids = tokenizer.encode(text);
            CHECK(got[0].get<std::vector<int64_t>>() == ids);
            CHECK(got[1].get<std::string>() == hex_of(tokenizer.decode(ids)));
            if (tokenizer.kind() == train::TokenizerKind::bpe) CHECK(got[1].get<std::string>() == hex_of(text));   // bytes in, the same bytes out
        }
    }
}

TEST_CASE("model.py without PyTorch says which package to install in one line and exits 2", "[integration]") {
    test::TempDir dir;
    test::write_text(dir / "model.py", kPytorchModelPy);
    // A None entry in sys.modules makes `import torch` fail as where torch is not installed.
    const std::string run_as_main = "import runpy, sys\nsys.modules[\"torch\"] = None\nsys.argv = [\"model.py\"]\n"
                                    "runpy.run_path(\"" + (dir / "model.py") + "\", run_name=\"__main__\")\n";
    const Ran ran = run_python(run_as_main);
    CHECK(ran.exit_code == 2);
    CHECK(ran.output == "model.py needs PyTorch: on Debian, apt-get install python3-torch\n");
    // Imported as a module it raises the same words, for the program that imported it to show.
    const Ran imported = run_python("import sys\nsys.modules[\"torch\"] = None\nsys.path.insert(0, \"" + dir.path() +
                                    "\")\ntry:\n    import model\nexcept ImportError as error:\n    print(error)\n");
    CHECK(imported.exit_code == 0);
    CHECK(imported.output == "model.py needs PyTorch: on Debian, apt-get install python3-torch\n");
}
