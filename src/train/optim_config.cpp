// Reading, printing and applying the "optimizer" config section.
#include "train/optim_config.h"

#include <cmath>

namespace tf::train {

namespace {
using config::Json;
using config::JsonReader;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A key that is known but meaningless here ("momentum" for adam) is an error, not ignored.
void reject_if_present(JsonReader& reader, const std::string& key, const std::string& user) {
    if (reader.has(key)) throw ConfigError(reader.path_of(key) + ": not used by " + user + "; remove it");
    reader.mark_read(key);
}

// A number strictly above 0 (JsonReader's ranges are inclusive).
double positive(JsonReader& reader, const std::string& key, std::optional<double> fallback) {
    if (!reader.has(key) && fallback) return (reader.use_default(key, *fallback), *fallback);
    const double value = reader.number(key);
    if (value <= 0) throw ConfigError(reader.path_of(key) + ": expected a number > 0, got " + config::describe(reader.raw(key)));
    return value;
}

// A number in [0, 1): a momentum or a β.
bool in_unit_interval(const Json& value) {
    return value.is_number() && value.get<double>() >= 0 && value.get<double>() < 1;
}
double unit_interval(JsonReader& reader, const std::string& key, double fallback) {
    if (!reader.has(key)) return (reader.use_default(key, fallback), fallback);
    const Json& value = reader.raw(key);
    if (!in_unit_interval(value))
        throw ConfigError(reader.path_of(key) + ": expected a number in [0, 1), got " + config::describe(value));
    return value.get<double>();
}

// "betas": [β1, β2], each in [0, 1).
void read_betas(JsonReader& reader, OptimConfig& out) {
    if (!reader.has("betas")) return reader.use_default("betas", {out.beta1, out.beta2});
    const Json& betas = reader.raw("betas");
    const std::string path = reader.path_of("betas");
    if (!betas.is_array() || betas.size() != 2)
        throw ConfigError(path + ": expected a list of two numbers [beta1, beta2], got " + config::describe(betas));
    for (std::size_t i = 0; i < 2; ++i)
        if (!in_unit_interval(betas[i]))
            throw ConfigError(path + "[" + std::to_string(i) + "]: expected a number in [0, 1), got " +
                              config::describe(betas[i]));
    out.beta1 = betas[0].get<double>();
    out.beta2 = betas[1].get<double>();
}

void read_sgd(JsonReader& reader, OptimConfig& out) {
    out.momentum = unit_interval(reader, "momentum", 0);
    out.nesterov = reader.boolean("nesterov", false);
    if (out.nesterov && out.momentum == 0)
        throw ConfigError(reader.path_of("nesterov") + ": needs momentum > 0 (" + reader.path_of("momentum") + " is 0)");
    out.weight_decay = reader.number("weight_decay", 0, 0, kInfinity);
    for (const char* key : {"betas", "eps"}) reject_if_present(reader, key, "the \"sgd\" optimizer");
}

void read_adam(JsonReader& reader, OptimConfig& out) {
    read_betas(reader, out);
    out.eps = positive(reader, "eps", 1e-8);
    // PyTorch's defaults: Adam 0, AdamW 0.01.
    out.weight_decay = reader.number("weight_decay", out.kind == OptimizerKind::adamw ? 0.01 : 0, 0, kInfinity);
    const std::string user = out.kind == OptimizerKind::adamw ? "the \"adamw\" optimizer" : "the \"adam\" optimizer";
    for (const char* key : {"momentum", "nesterov"}) reject_if_present(reader, key, user);
}

// Everything in "schedule" but its name, once the peak lr is known (min_lr is bounded by it).
void read_schedule(JsonReader& reader, const std::string& name, double peak_lr, int64_t max_steps,
                   ScheduleConfig& out) {
    const std::string user = "the \"" + name + "\" schedule";
    if (out.kind == ScheduleKind::constant) {
        for (const char* key : {"warmup_steps", "min_lr", "total_steps", "scale", "d_model"})
            reject_if_present(reader, key, user);
    } else if (out.kind == ScheduleKind::noam) {
        out.warmup_steps = reader.integer("warmup_steps", {.min = 1});
        out.d_model = reader.integer("d_model", {.min = 1});
        out.scale = positive(reader, "scale", 1.0);
        for (const char* key : {"min_lr", "total_steps"}) reject_if_present(reader, key, user);
    } else {
        out.total_steps = reader.integer("total_steps", max_steps, {.min = 1});
        out.warmup_steps = reader.integer("warmup_steps", 0, {.min = 0, .max = out.total_steps});
        out.min_lr = reader.number("min_lr", 0, 0, peak_lr);
        // Past total_steps the rate stays at min_lr: at 0 the remaining steps would change nothing.
        // (A resume with a larger train.max_steps keeps the saved total_steps and lands here.)
        if (out.total_steps < max_steps && out.min_lr == 0)
            throw ConfigError(reader.path_of("total_steps") + " is " + std::to_string(out.total_steps) + " but train.max_steps is " +
                              std::to_string(max_steps) + ": with min_lr 0 every step after " + std::to_string(out.total_steps) +
                              " would train at rate 0; set total_steps to max_steps (or min_lr above 0)");
        for (const char* key : {"scale", "d_model"}) reject_if_present(reader, key, user);
    }
    reader.finish();
}
}  // namespace

OptimConfig OptimConfig::from_json(JsonReader& reader, int64_t max_steps) {
    if (max_steps < 1) throw ConfigError(reader.path() + ": max_steps must be ≥ 1, got " + std::to_string(max_steps));
    OptimConfig out;
    out.kind = reader.choice<OptimizerKind>("name");

    std::optional<JsonReader> schedule_reader;
    if (reader.has("schedule")) {
        schedule_reader.emplace(reader.object("schedule"));
        out.schedule.kind = schedule_reader->choice<ScheduleKind>("name");
    }
    const std::string schedule_name = name_of(out.schedule.kind);

    if (out.schedule.kind == ScheduleKind::noam)
        reject_if_present(reader, "lr", "the \"noam\" schedule (its rate is scale·d_model^-0.5·min(step^-0.5, "
                                        "step·warmup_steps^-1.5))");
    else out.lr = positive(reader, "lr", std::nullopt);
    if (schedule_reader) read_schedule(*schedule_reader, schedule_name, out.lr, max_steps, out.schedule);
    else reader.use_default("schedule", Json{{"name", schedule_name}});

    if (out.kind == OptimizerKind::sgd) read_sgd(reader, out);
    else read_adam(reader, out);
    if (reader.has("clip_grad_norm")) out.clip_grad_norm = positive(reader, "clip_grad_norm", std::nullopt);
    reader.finish();
    return out;
}

Json OptimConfig::to_json() const {
    Json out;
    out["name"] = name_of(kind);
    if (schedule.kind != ScheduleKind::noam) out["lr"] = lr;
    if (kind == OptimizerKind::sgd) {
        out["momentum"] = momentum;
        out["nesterov"] = nesterov;
    } else {
        out["betas"] = {beta1, beta2};
        out["eps"] = eps;
    }
    out["weight_decay"] = weight_decay;
    if (clip_grad_norm) out["clip_grad_norm"] = *clip_grad_norm;
    Json& s = out["schedule"];
    s["name"] = name_of(schedule.kind);
    if (schedule.kind == ScheduleKind::linear || schedule.kind == ScheduleKind::cosine) {
        s["warmup_steps"] = schedule.warmup_steps;
        s["total_steps"] = schedule.total_steps;
        s["min_lr"] = schedule.min_lr;
    } else if (schedule.kind == ScheduleKind::noam) {
        s["warmup_steps"] = schedule.warmup_steps;
        s["d_model"] = schedule.d_model;
        s["scale"] = schedule.scale;
    }
    return out;
}

std::unique_ptr<Optimizer> make_optimizer(const OptimConfig& config, const NamedParameters& parameters) {
    if (config.kind == OptimizerKind::sgd)
        return std::make_unique<Sgd>(parameters, SgdOptions{config.momentum, config.nesterov, config.weight_decay});
    const AdamOptions options{config.beta1, config.beta2, config.eps, config.weight_decay};
    if (config.kind == OptimizerKind::adam) return std::make_unique<Adam>(parameters, options);
    return std::make_unique<AdamW>(parameters, options);
}

}  // namespace tf::train
