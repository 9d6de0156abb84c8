// Reading the run config section by section.
#include "train/run_config.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "config/json_file.h"
#include "config/seed_range.h"
#include "train/run_dir.h"
#include "train/run_name.h"
#include "util/files.h"

namespace tf::train {

namespace {
// An optional section: its reader, or a reader of an empty object (every key defaulted).
config::JsonReader optional_section(config::JsonReader& top, const std::string& key, config::Json& resolved) {
    static const config::Json empty = config::Json::object();
    if (top.has(key)) return top.object(key);
    top.mark_read(key);
    return config::JsonReader(empty, key, &resolved[key]);
}

// The run directory is runs/<name>: a name that is not one plain path component would put the
// run somewhere else ("..": the working directory itself).
std::string read_name(config::JsonReader& top, const std::string& default_name) {
    const bool given = top.has("name");
    const std::string name = top.string("name", default_name);
    if (const std::string problem = run_name_problem(name); !problem.empty())
        throw ConfigError("name: expected one plain path component for the run directory runs/<name>, got " +
                          config::describe(name) + ": " + problem +
                          (given ? "" : " (the default, the config file's stem: set \"name\")"));
    return name;
}

// The decoder of a transformer sees <bos> and every token generated so far: it cannot generate
// more tokens than it has positions. A recurrent model has no position table.
int64_t decode_length_limit(const ModelConfig& model) {
    return model.type == ModelKind::rnn_seq2seq ? std::numeric_limits<int64_t>::max() : model.max_length;
}

// std::thread::hardware_concurrency(), or 1 where the machine does not say.
int64_t hardware_threads() { return std::max<int64_t>(1, std::thread::hardware_concurrency()); }
}  // namespace

int64_t max_threads() { return std::min<int64_t>(kMaxThreads, 4 * hardware_threads()); }

RunConfig read_run_config(const config::Json& root, const std::string& default_name) {
    RunConfig run;
    config::JsonReader top(root, "", &run.resolved);
    run.name = read_name(top, default_name);
    run.seed = static_cast<uint64_t>(top.integer("seed", 1, config::kSeedRange));
    run.threads = top.integer("threads", 0, {.min = 0, .max = kMaxThreads});
    run.precision = top.choice("precision", kernels::MatmulPrecision::fp32);
    run.kernels = top.choice("kernels", kernels::KernelPath::fast);
    config::JsonReader model = top.object("model");
    run.model = read_model_config(model);
    config::JsonReader data = top.object("data");
    run.data = DataConfig::from_json(data);
    if (run.model.type != ModelKind::rnn_seq2seq) run.data.model_positions = run.model.max_length;
    // The optimizer's schedule defaults its length to the run's, so read "train" first.
    config::JsonReader train = optional_section(top, "train", run.resolved);
    run.train = read_train_config(train);
    config::JsonReader optimizer = optional_section(top, "optimizer", run.resolved);
    run.optimizer = OptimConfig::from_json(optimizer, run.train.max_steps);
    config::JsonReader decode = optional_section(top, "decode", run.resolved);
    run.decode = read_decode_config(decode, std::min(decode_length_limit(run.model), DecodeConfig{}.max_length));
    top.finish();
    if (run.data.batch_size % run.train.accumulate_steps != 0)
        throw ConfigError("train.accumulate_steps: " + std::to_string(run.train.accumulate_steps) +
                          " micro-batches must divide data.batch_size " + std::to_string(run.data.batch_size) +
                          " into equal parts (each micro-batch is batch_size / accumulate_steps examples)");
    if (run.model.is_language_model() != run.data.task.is_lm())
        throw ConfigError("model.type: \"" + name_of(run.model.type) + "\" " +
                          (run.model.is_language_model() ? "is a language model and needs data.task \"lm\""
                                                         : "is a sequence-to-sequence model and cannot train on data.task \"lm\""));
    return run;
}

void check_threads(const RunConfig& run) {
    if (run.threads > max_threads())
        throw ConfigError("threads: expected at most " + std::to_string(max_threads()) + " (4 × this machine's " +
                          std::to_string(hardware_threads()) + " hardware threads, at most " +
                          std::to_string(kMaxThreads) + "), got " + std::to_string(run.threads));
}

void check_precision(const RunConfig& run) {
    if (run.precision != kernels::MatmulPrecision::bf16) return;
    if (const std::string reason = kernels::bf16_unsupported_reason(); !reason.empty())
        throw ConfigError("precision: " + reason);
}

void check_new_run(const RunConfig& run) {
    check_threads(run);
    check_precision(run);
    // A saved run is read without its data (generate, export): only what trains needs the file.
    if (run.data.source != DataSource::synthetic)
        if (const std::string problem = input_file_problem(run.data.path, kMaxDataBytes); !problem.empty())
            throw ConfigError("data.path: cannot use '" + shown_path(run.data.path) + "' as the data file (" + problem + ")");
    if (run.decode.max_length > decode_length_limit(run.model))
        throw ConfigError("decode.max_length: " + std::to_string(run.decode.max_length) + " tokens do not fit model.max_length (" +
                          std::to_string(run.model.max_length) + " positions, <bos> included): expected at most " +
                          std::to_string(run.model.max_length));
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
    return run_config_from_json(config::load_json_file(path), overrides, std::filesystem::path(path).stem().string());
}

RunConfig run_config_from_json(config::Json root, const std::vector<std::string>& overrides, const std::string& default_name) {
    for (const std::string& assignment : overrides) config::apply_override(root, assignment);
    RunConfig run = read_run_config(root, default_name);
    check_new_run(run);
    return run;
}

RunConfig resumed_run_config(const std::string& run_dir, const std::vector<std::string>& overrides) {
    const RunDirectory run(run_dir);
    run.require_directory("--resume", RunDirectory::Existing::required);
    config::Json saved = config::load_json_file(run.config());
    for (const auto& assignment : overrides) config::apply_override(saved, assignment);
    RunConfig config = read_run_config(saved, saved.value("name", "run"));
    if (std::any_of(overrides.begin(), overrides.end(), [](const std::string& assignment) { return assignment.starts_with("threads="); }))
        check_threads(config);
    check_precision(config);
    return config;
}

}  // namespace tf::train
