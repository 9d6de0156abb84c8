// `tapeformer export --run DIR --to pytorch OUT/`: a trained run as a PyTorch model. OUT gets
//   - model.safetensors: the weights under the names of the torch.nn modules of model.py: the
//     q, k and v projections of each attention packed into nn.MultiheadAttention's in_proj_weight
//     and in_proj_bias, nn.TransformerEncoderLayer's linear1/linear2/norm1…, nn.GRU's names as
//     they are (docs/models.md lists every name on both sides);
//   - model.py (src/export/pytorch_model.py): the three model types written with torch.nn, the
//     run's tokenizer, greedy decoding, and a main that compares its logits with tapeformer's;
//   - config.json: the run's model section and vocabulary size, which model.py builds from;
//   - vocab.json: the run's vocabulary as training saved it (char and word: the tokens; bpe: the
//     merges; ids: the size), which model.py's encode and decode read;
//   - check.safetensors: token sequences drawn from the vocabulary and the logits tapeformer
//     computed for them. Only the run directory is read: it exports wherever it was copied.
// What model.py can rebuild comes from the tables the model is built from: each recurrent cell,
// decoder attention, norm and layer-registry block entry names its PyTorch twin (the module
// model.py writes for it) beside its factory, and an entry without one (a cell added in one line,
// SwiGLU, Luong attention, …) is refused, naming the kind. Options model.py has no module for
// (grouped-query attention, a bidirectional encoder, a registry layer as a block's ffn or
// self_attention) are refused, naming the key. The worked example block, local_conv_mixer, has no
// torch.nn counterpart: model.py writes it from the same math (docs/extending.md).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "models/build.h"
#include "train/run_loader.h"

namespace tf {

// Why model.py cannot rebuild this model (the first key, or kind without a PyTorch twin), or "".
std::string pytorch_export_problem(const ModelConfig& model);

// The model's parameters under model.py's names.
std::map<std::string, Tensor> pytorch_state_dict(const SequenceModel& model);

// The five files' names, in the order export_to_pytorch returns their paths.
inline const std::vector<std::string> kExportedFiles{"model.safetensors", "model.py", "config.json", "check.safetensors",
                                                     "vocab.json"};

// Writes the five files into `out` (made if missing); returns their paths. ValueError when
// pytorch_export_problem names a problem, FileError
// before anything is written when `out` is a symbolic link or the run directory itself, or holds
// one of the five files and `overwrite` is false.
std::vector<std::string> export_to_pytorch(train::LoadedRun& run, const std::string& run_dir, const std::string& out,
                                           int64_t examples, bool overwrite);

}  // namespace tf
