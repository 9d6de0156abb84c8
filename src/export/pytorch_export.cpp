// A run's model as PyTorch modules (export/pytorch_export.h).
#include "export/pytorch_export.h"

#include <filesystem>
#include <utility>

#include "autograd/ops.h"
#include "autograd/random.h"
#include "autograd/tape.h"
#include "layers/attention/decoder_attention_registry.h"
#include "layers/norm_registry.h"
#include "layers/recurrent/cell_registry.h"
#include "layers/builtin_layers.h"
#include "datasets/batching.h"
#include "train/evaluate.h"
#include "train/safetensors.h"
#include "util/files.h"

namespace tf {

extern const char* const kPytorchModelPy;   // src/export/pytorch_model.py, embedded at build time

namespace {

std::string refused(const std::string& key, const std::string& value) {
    return "model." + key + " = " + value + " has no counterpart in the exported model.py";
}

// The kind `kind` of a table, named at model.`key`, whose entry registers no PyTorch twin.
std::string without_twin(const std::string& key, const std::string& table, const std::string& kind) {
    return "model." + key + ": " + table + " '" + kind +
           "' has no PyTorch twin yet (give its table entry one and write that module in src/export/pytorch_model.py)";
}

std::string refused_transformer(const TransformerOptions& options) {
    if (options.kv_heads != 0 && options.kv_heads != options.heads)   // nn.MultiheadAttention has no grouped-query attention
        return refused("kv_heads", std::to_string(options.kv_heads));
    if (norm_type(options.norm).pytorch_twin.empty()) return without_twin("norm", "norm", options.norm);
    // model.py's blocks are nn.TransformerEncoderLayer/DecoderLayer, with their own attention and feed-forward.
    for (const auto& [key, choice] : {std::pair{"ffn", &options.ffn}, std::pair{"self_attention", &options.self_attention}})
        if (choice->chosen()) return without_twin(key, "layer", choice->entry.value("type", ""));
    if (options.custom_block.chosen()) {
        const std::string type = options.custom_block.entry.value("type", "");
        if (builtin_layers().pytorch_twin(type).empty()) return without_twin("block", "layer", type);
    }
    return "";
}

std::string refused_rnn(const RnnSeq2SeqOptions& options) {
    if (recurrent_cell(options.cell).pytorch_twin.empty()) return without_twin("cell", "recurrent cell", options.cell);
    if (options.attention && decoder_attention(*options.attention).pytorch_twin.empty())
        return without_twin("attention", "decoder attention", *options.attention);
    if (options.bidirectional_encoder) return refused("bidirectional_encoder", "true");
    return "";
}

// Our names → model.py's. A name that starts with an embedding prefix takes model.py's prefix;
// any other has each part below replaced, once; the rest of the name is the same.
const std::pair<std::string, std::string> kEmbeddingPrefixes[] = {
    {"src_embedding.embedding.", "src_embed.token."}, {"src_embedding.positions.", "src_embed.positions."},
    {"tgt_embedding.embedding.", "tgt_embed.token."}, {"tgt_embedding.positions.", "tgt_embed.positions."},
    {"embedding.embedding.", "embed.token."},         {"embedding.positions.", "embed.positions."}};
const std::pair<std::string, std::string> kRenamedParts[] = {
    {".o_proj.", ".out_proj."}, {".cross_attn.", ".multihead_attn."}, {".ffn.linear", ".linear"}};

// nn.MultiheadAttention keeps the q, k and v projections as one in_proj_weight (3C, C) and
// in_proj_bias (3C), rows q, then k, then v.
const std::string kPackedProjections[] = {".q_proj.", ".k_proj.", ".v_proj."};
const std::string kPackedName = ".in_proj_";

// model.py's name of one of our parameters (the q/k/v projections are packed separately).
std::string pytorch_name(std::string name) {
    for (const auto& [ours, theirs] : kEmbeddingPrefixes)
        if (name.rfind(ours, 0) == 0) return theirs + name.substr(ours.size());
    for (const auto& [ours, theirs] : kRenamedParts)
        if (const std::size_t at = name.find(ours); at != std::string::npos) name.replace(at, ours.size(), theirs);
    return name;
}

// A (B, T) id table as f32 (ids are far below 2^24, so exact), for check.safetensors.
Tensor ids_as_floats(const IndexTensor& ids) {
    Tensor floats(ids.shape, DType::f32);
    for (std::size_t i = 0; i < ids.values.size(); ++i) floats.data<float>()[i] = static_cast<float>(ids.values[i]);
    return floats;
}

}  // namespace

std::string pytorch_export_problem(const ModelConfig& model) {
    return model.type == ModelKind::rnn_seq2seq ? refused_rnn(model.rnn) : refused_transformer(model.transformer);
}

// y = x·Wᵀ + b for q, k and v at once: nn.MultiheadAttention keeps them as one (3C, C) matrix.
std::map<std::string, Tensor> pytorch_state_dict(const SequenceModel& model) {
    std::map<std::string, Tensor> ours, theirs;
    for (const auto& [name, tensor] : model.named_parameters()) ours.emplace(name, tensor);
    const NoGradGuard no_grad;
    const auto packed_away = [](const std::string& name) {   // k and v: packed with their q
        return name.find(kPackedProjections[1]) != std::string::npos || name.find(kPackedProjections[2]) != std::string::npos;
    };
    for (const auto& [name, tensor] : ours) {
        if (packed_away(name)) continue;
        const std::size_t q = name.find(kPackedProjections[0]);
        if (q == std::string::npos) {
            theirs.emplace(pytorch_name(name), tensor);
            continue;
        }
        // "attention.q_proj.weight" → "attention" and "weight" (or "bias")
        const std::string attention = name.substr(0, q), part = name.substr(q + kPackedProjections[0].size());
        std::vector<Tensor> rows;
        for (const std::string& projection : kPackedProjections) rows.push_back(ours.at(attention + projection + part));
        theirs.emplace(pytorch_name(attention + kPackedName + part), concat(rows, 0));
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
    if (const std::string problem = pytorch_export_problem(run.config.model); !problem.empty())
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
    const nlohmann::json config = {{"model", run.config.resolved.at("model")}, {"vocab_size", run.dataset.vocab_size},
                                   {"checkpoint", run.checkpoint}, {"step", run.step}};
    write_file_atomic(paths[2], config.dump(2) + "\n");
    train::write_safetensors(paths[3], check, {{"examples", std::to_string(rows.size())}});
    run.dataset.tokenizer.save(paths[4]);   // the run's vocab.json, read and checked when the run was loaded
    return paths;
}

}  // namespace tf
