// Reading the run config section by section.
#include "train/run_config.h"

#include <filesystem>

#include "config/json_file.h"

namespace tf::train {

namespace {
// An optional section: its reader, or a reader of an empty object (every key defaulted).
config::JsonReader optional_section(config::JsonReader& top, const std::string& key, config::Json& resolved) {
    static const config::Json empty = config::Json::object();
    if (top.has(key)) return top.object(key);
    top.mark_read(key);
    return config::JsonReader(empty, key, &resolved[key]);
}
}  // namespace

RunConfig read_run_config(const config::Json& root, const std::string& default_name) {
    RunConfig run;
    config::JsonReader top(root, "", &run.resolved);
    run.name = top.string("name", default_name);
    if (run.name.empty() || run.name.find('/') != std::string::npos)
        throw ConfigError("name: expected a non-empty name without '/', got \"" + run.name + "\"");
    run.seed = static_cast<uint64_t>(top.integer("seed", 1, 0, INT64_MAX));
    run.threads = top.integer("threads", 0, 0, 1024);
    config::JsonReader model = top.object("model");
    run.model = read_model_config(model);
    config::JsonReader data = top.object("data");
    run.data = DataConfig::from_json(data);
    // The optimizer's schedule defaults its length to the run's, so read "train" first.
    config::JsonReader train = optional_section(top, "train", run.resolved);
    run.train = read_train_config(train);
    config::JsonReader optimizer = optional_section(top, "optimizer", run.resolved);
    run.optimizer = OptimConfig::from_json(optimizer, run.train.max_steps);
    config::JsonReader decode = optional_section(top, "decode", run.resolved);
    run.decode = read_decode_config(decode);
    top.finish();
    if (run.model.is_language_model() != (run.data.task == "lm"))
        throw ConfigError(std::string("model.type: \"") + run.model.type + "\" " +
                          (run.model.is_language_model() ? "is a language model and needs data.task \"lm\""
                                                         : "is a sequence-to-sequence model and cannot train on data.task \"lm\""));
    return run;
}

RunConfig load_run_config(const std::string& path, const std::vector<std::string>& overrides) {
    config::Json root = config::load_json_file(path);
    for (const std::string& assignment : overrides) config::apply_override(root, assignment);
    return read_run_config(root, std::filesystem::path(path).stem().string());
}

}  // namespace tf::train
