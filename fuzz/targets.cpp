// The fuzz targets: each writes the bytes where its loader reads them (a file in a private
// temporary directory, overwritten by every input) and calls the loader the CLI calls.
#include "targets.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "autograd/error.h"
#include "autograd/storage.h"
#include "config/json_file.h"
#include "models/build.h"
#include "train/checkpoint.h"
#include "datasets/dataset.h"
#include "train/run_config.h"
#include "train/run_loader.h"
#include "train/safetensors.h"
#include "source_paths.h"

namespace tf::fuzz {

namespace {

namespace fs = std::filesystem;

// A directory of this process's own, made on first use and reused by every input.
const fs::path& scratch_dir() {
    static const fs::path dir = [] {
        std::string pattern = (fs::temp_directory_path() / "tapeformer-fuzz-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("fuzz: cannot create a temporary directory");
        return fs::path(pattern);
    }();
    return dir;
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
    const fs::path path = scratch_dir() / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(bytes.size()));
    return path.string();
}

// "a\0b\0c" → {"a", "b", "c"}; with `max_parts`, the last part keeps any later NULs:
// "a\0b\0c\0d" with 3 → {"a", "b", "c\0d"}.
std::vector<std::string_view> split_at_nul(std::string_view bytes, std::size_t max_parts = SIZE_MAX) {
    std::vector<std::string_view> parts;
    for (std::size_t start = 0;;) {
        const std::size_t end = parts.size() + 1 == max_parts ? std::string_view::npos : bytes.find('\0', start);
        parts.push_back(bytes.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

void load_config(std::string_view bytes) {
    const std::vector<std::string_view> parts = split_at_nul(bytes);
    const std::vector<std::string> overrides(parts.begin() + 1, parts.end());
    train::load_run_config(write_scratch("config.json", parts[0]), overrides);
}

// The model whose checkpoints the safetensors target loads: fuzz/tiny_transformer.json, whose
// 2-step run gives the seed checkpoint (scripts/fuzz.sh).
const train::RunConfig& tiny_config() {
    static const train::RunConfig config = train::load_run_config(std::string(TF_SOURCE_DIR) + "/fuzz/tiny_transformer.json", {});
    return config;
}

SequenceModel& tiny_model() {
    static const std::shared_ptr<SequenceModel> model = [] {
        const train::RunConfig& config = tiny_config();
        ModelBuildContext build;
        build.vocab_size = train::load_dataset(config.data).vocab_size;
        build.pad_id = train::kPadId;
        build.seed = config.seed;
        build.dropout_rng = std::make_shared<Rng>(config.seed + 1);
        return build_model(config.model, build);
    }();
    return *model;
}

void load_safetensors(std::string_view bytes) {
    const std::string path = write_scratch("checkpoint.safetensors", bytes);
    train::read_safetensors(path);
    train::read_progress(path);
    train::load_weights(path, tiny_model(), train::Tokenizer(), tiny_config().resolved);
}

train::DataConfig data_config(DataKind kind, const std::string& path) {
    train::DataConfig config;
    config.path = path;
    const bool jsonl = kind == DataKind::jsonl_seq2seq || kind == DataKind::jsonl_lm;
    config.source = jsonl ? train::DataSource::jsonl : train::DataSource::text;
    config.tokenizer = kind == DataKind::text_word_stanzas ? train::TokenizerKind::word : train::TokenizerKind::character;
    config.split = kind == DataKind::text_word_stanzas ? train::TextSplit::stanzas : train::TextSplit::lines;
    config.task = {kind == DataKind::jsonl_lm        ? train::TaskKind::lm
                   : kind == DataKind::jsonl_seq2seq ? train::TaskKind::seq2seq
                                                     : train::TaskKind::autoencode};
    config.vocab_size = 96;
    config.too_long = train::TooLong::truncate;
    return config;
}

void load_data(std::string_view bytes) {
    if (bytes.empty()) return;
    const auto kind = DataKind(static_cast<unsigned char>(bytes[0]) % int(DataKind::count));
    const std::string path = write_scratch("data", bytes.substr(1));
    if (kind == DataKind::vocab_json) {
        train::Tokenizer::load(path);
        return;
    }
    const train::Dataset dataset = train::load_dataset(data_config(kind, path));
    for (const train::Example& example : dataset.train) dataset.tokenizer.decode(example.src);
    dataset.tokenizer.to_json().dump();  // what training saves as vocab.json: JSON holds only UTF-8
}

// The checkpoint comes last and keeps its NUL bytes (its length prefix always has some).
void load_run_dir(std::string_view bytes) {
    const std::vector<std::string_view> parts = split_at_nul(bytes, 3);
    const fs::path run = scratch_dir() / "run";
    fs::remove_all(run);
    const char* names[] = {"config.resolved.json", "checkpoints/latest", "checkpoints/step-2.safetensors"};
    for (std::size_t i = 0; i < parts.size() && i < std::size(names); ++i) write_scratch(fs::path("run") / names[i], parts[i]);
    train::load_run(run.string());
}

}  // namespace

namespace {
// One input's tensors stay within 128 MiB: a config asking for a bigger model is refused by the
// contract (MemoryLimitError) at once, instead of spending the fuzzer's time limit, or the replay
// test's time, initialising gigabytes of weights under the sanitizers. The limit in force before
// is restored after the input.
class TensorBudget {
public:
    static constexpr int64_t kBytesPerInput = int64_t{128} << 20;
    TensorBudget() : saved_(memory::limit_bytes()) { memory::set_limit_bytes(memory::live_bytes() + kBytesPerInput); }
    ~TensorBudget() { memory::set_limit_bytes(saved_); }
    TensorBudget(const TensorBudget&) = delete;
    TensorBudget& operator=(const TensorBudget&) = delete;

private:
    int64_t saved_;
};
}  // namespace

void run_target(Target target, std::string_view bytes) {
    const TensorBudget budget;
    try {
        switch (target) {
            case Target::config: return load_config(bytes);
            case Target::safetensors: return load_safetensors(bytes);
            case Target::data: return load_data(bytes);
            case Target::run_dir: return load_run_dir(bytes);
        }
    } catch (const InputError&) {
        // the contract: bad input is refused with the project's bad-input error
    }
}

const std::vector<std::string>& target_names() {
    static const std::vector<std::string> names{"config", "safetensors", "data", "run_dir"};
    return names;
}

Target target_named(const std::string& name) {
    for (std::size_t i = 0; i < target_names().size(); ++i)
        if (target_names()[i] == name) return Target(i);
    throw std::invalid_argument("fuzz: unknown target '" + name + "'");
}

}  // namespace tf::fuzz
