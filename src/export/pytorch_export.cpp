// A run's model as PyTorch modules (export/pytorch_export.h).
#include "export/pytorch_export.h"

#include <filesystem>
#include <set>
#include <utility>

#include "autograd/ops.h"
#include "autograd/random.h"
#include "autograd/tape.h"
#include "train/batching.h"
#include "train/evaluate.h"
#include "train/safetensors.h"
#include "util/files.h"

namespace tf {

extern const char* const kPytorchModelPy;   // src/export/pytorch_model.py, embedded at build time

namespace {

// The values model.py's modules take, per key of each model type; any other key is refused.
using Allowed = std::map<std::string, std::set<std::string>>;
const std::set<std::string> kAny{};   // every value of the key

const Allowed kTransformerKeys{
    {"type", kAny}, {"d_model", kAny}, {"heads", kAny}, {"ffn_hidden", kAny}, {"max_length", kAny}, {"dropout", kAny},
    {"attention_dropout", kAny}, {"final_norm", kAny}, {"norm_first", kAny}, {"scale_embeddings", kAny},
    {"activation", {"\"relu\"", "\"gelu\""}}, {"positions", {"\"sinusoidal\"", "\"learned\""}},
    {"kernel", {"\"softmax\"", "\"tiled\""}}};

const Allowed kRnnKeys{{"type", kAny},          {"embedding_size", kAny}, {"hidden_size", kAny},
                       {"num_layers", kAny},    {"dropout", kAny},        {"cell", kAny},
                       {"attention", {"\"none\"", "\"additive\""}},       {"bidirectional_encoder", {"false"}}};

std::string refused(const std::string& key, const nlohmann::json& value) {
    return "model." + key + " = " + value.dump() + " has no counterpart in the exported model.py";
}

// Replaces the first `from` in `name` by `to`.
std::string renamed(std::string name, const std::string& from, const std::string& to) {
    const std::size_t at = name.find(from);
    return at == std::string::npos ? name : name.replace(at, from.size(), to);
}

// The embeddings' modules: our prefix, model.py's (the rest of the name is the same).
const std::pair<std::string, std::string> kEmbeddingPrefixes[] = {
    {"src_embedding.embedding.", "src_embed.token."}, {"src_embedding.positions.", "src_embed.positions."},
    {"tgt_embedding.embedding.", "tgt_embed.token."}, {"tgt_embedding.positions.", "tgt_embed.positions."},
    {"embedding.embedding.", "embed.token."},         {"embedding.positions.", "embed.positions."}};

// model.py's name of one of our parameters (the q/k/v projections are packed separately).
std::string pytorch_name(std::string name) {
    for (const auto& [ours, theirs] : kEmbeddingPrefixes)
        if (name.rfind(ours, 0) == 0) return theirs + name.substr(ours.size());
    name = renamed(name, ".o_proj.", ".out_proj.");
    name = renamed(name, ".cross_attn.", ".multihead_attn.");
    return renamed(name, ".ffn.linear", ".linear");
}

// A (B, T) id table as f32 (ids are far below 2^24, so exact), for check.safetensors.
Tensor ids_as_floats(const IndexTensor& ids) {
    Tensor floats(ids.shape, DType::f32);
    for (std::size_t i = 0; i < ids.values.size(); ++i) floats.data<float>()[i] = static_cast<float>(ids.values[i]);
    return floats;
}

}  // namespace

std::string pytorch_export_problem(const nlohmann::json& model) {
    const std::string type = model.value("type", "");
    const Allowed& allowed = type == "rnn_seq2seq" ? kRnnKeys : kTransformerKeys;
    for (const auto& [key, value] : model.items()) {
        if (type == "transformer" && (key == "encoder_layers" || key == "decoder_layers")) continue;
        if (type == "lm" && key == "layers") continue;
        if (type == "lm" && key == "block") {   // model.py writes this registry block out from its math
            if (!value.is_object() || value.value("type", "") != "local_conv_mixer") return refused(key, value);
            continue;
        }
        if (key == "kv_heads") {   // nn.MultiheadAttention has no grouped-query attention
            if (value != 0 && value != model.value("heads", nlohmann::json())) return refused(key, value);
            continue;
        }
        const auto found = allowed.find(key);
        if (found == allowed.end() || (!found->second.empty() && !found->second.count(value.dump()))) return refused(key, value);
    }
    return "";
}

// y = x·Wᵀ + b for q, k and v at once: nn.MultiheadAttention keeps them as one (3C, C) matrix.
std::map<std::string, Tensor> pytorch_state_dict(const SequenceModel& model) {
    std::map<std::string, Tensor> ours, theirs;
    for (const auto& [name, tensor] : model.named_parameters()) ours.emplace(name, tensor);
    const NoGradGuard no_grad;
    for (const auto& [name, tensor] : ours) {
        if (name.find(".k_proj.") != std::string::npos || name.find(".v_proj.") != std::string::npos) continue;
        const std::size_t q = name.find(".q_proj.");
        if (q == std::string::npos) {
            theirs.emplace(pytorch_name(name), tensor);
            continue;
        }
        const std::string attention = name.substr(0, q), part = name.substr(q + 8);   // "weight" or "bias"
        const Tensor packed = concat({tensor, ours.at(attention + ".k_proj." + part), ours.at(attention + ".v_proj." + part)}, 0);
        theirs.emplace(pytorch_name(attention + ".in_proj_" + part), packed);
    }
    return theirs;
}

namespace {
// An export writes only where it was told: not through a symbolic link to somewhere else, not into
// the run it reads, and not over files already there unless asked to.
void require_export_folder(const std::string& run_dir, const std::string& out, bool overwrite) {
    namespace fs = std::filesystem;
    std::error_code error;
    if (fs::is_symlink(out, error))
        throw FileError("export: " + shown_path(out) + " is a symbolic link; give the folder itself");
    if (fs::exists(out, error) && fs::equivalent(out, run_dir, error))
        throw FileError("export: " + shown_path(out) + " is the run directory; export into a folder of its own");
    if (overwrite) return;
    for (const std::string& name : kExportedFiles)
        if (fs::exists(fs::symlink_status(out + "/" + name, error)))
            throw FileError("export: " + shown_path(out + "/" + name) + " exists; add --force to overwrite it");
}

constexpr uint64_t kCheckSeed = 1;

// The check's inputs: `count` token sequences drawn from the vocabulary with a fixed seed. Any
// input tells whether model.py computes tapeformer's logits, and these need no data file, so a run
// directory exports wherever it was copied.
std::vector<train::Example> check_inputs(const train::LoadedRun& run, int64_t count) {
    constexpr int64_t kLongest = 12;
    const int64_t length = std::max<int64_t>(1, std::min(kLongest, run.config.model.max_length - 1));   // <bos> takes a position
    const int64_t tokens = run.dataset.vocab_size - train::kNumSpecial;
    if (tokens < 1) throw DataError("export: the run's vocabulary holds no token besides the special ones");
    Rng rng(kCheckSeed);
    const auto sequence = [&](int64_t size) {
        std::vector<int64_t> ids(static_cast<std::size_t>(size));
        for (int64_t& id : ids) id = train::kNumSpecial + rng.below(tokens);
        return ids;
    };
    std::vector<train::Example> inputs;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t size = 1 + rng.below(length);
        inputs.push_back(run.dataset.is_lm() ? train::Example{sequence(size), {}} : train::Example{sequence(size), sequence(size)});
    }
    return inputs;
}
}  // namespace

std::vector<std::string> export_to_pytorch(train::LoadedRun& run, const std::string& run_dir, const std::string& out,
                                           int64_t examples, bool overwrite) {
    const nlohmann::json& model_section = run.config.resolved.at("model");
    if (const std::string problem = pytorch_export_problem(model_section); !problem.empty())
        throw ValueError("export --to pytorch: " + problem + " (docs/models.md)");
    require_export_folder(run_dir, out, overwrite);
    make_directories(out);
    const std::vector<train::Example> inputs = check_inputs(run, examples);
    std::vector<int64_t> rows(inputs.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
    const train::Batch batch = train::make_batch(inputs, rows, run.dataset.is_lm());
    std::map<std::string, Tensor> check{{"tgt_in", ids_as_floats(batch.tgt_in)}};
    if (!run.dataset.is_lm()) check.emplace("src", ids_as_floats(batch.src));
    {
        const NoGradGuard no_grad;
        check.emplace("logits", run.model->forward(train::to_model_input(batch)).to(DType::f32));
    }
    std::vector<std::string> paths;
    for (const std::string& name : kExportedFiles) paths.push_back(out + "/" + name);
    train::write_safetensors(paths[0], pytorch_state_dict(*run.model), {{"source", run.checkpoint}});
    write_file_atomic(paths[1], kPytorchModelPy);
    const nlohmann::json config = {{"model", model_section}, {"vocab_size", run.dataset.vocab_size},
                                   {"checkpoint", run.checkpoint}, {"step", run.step}};
    write_file_atomic(paths[2], config.dump(2) + "\n");
    train::write_safetensors(paths[3], check, {{"examples", std::to_string(rows.size())}});
    run.dataset.tokenizer.save(paths[4]);   // the run's vocab.json, read and checked when the run was loaded
    return paths;
}

}  // namespace tf
