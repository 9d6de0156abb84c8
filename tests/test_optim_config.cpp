// The "optimizer" config section: defaults, the resolved form, the factory, and a table of
// wrong configs whose errors must name the JSON path.
#include "helpers.h"
#include "train/optim_config.h"

using namespace tf;
using namespace tf::train;
using config::Json;

namespace {
OptimConfig read(const Json& section, int64_t max_steps = 1000) {
    config::JsonReader reader(section, "optimizer");
    return OptimConfig::from_json(reader, max_steps);
}
}  // namespace

TEST_CASE("optimizer config fills pytorch's defaults", "[unit]") {
    const OptimConfig adamw = read(Json::parse(R"({"name": "adamw", "lr": 0.001})"));
    REQUIRE(adamw.kind == OptimizerKind::adamw);
    REQUIRE(adamw.beta1 == 0.9);
    REQUIRE(adamw.beta2 == 0.999);
    REQUIRE(adamw.eps == 1e-8);
    REQUIRE(adamw.weight_decay == 0.01);
    REQUIRE_FALSE(adamw.clip_grad_norm.has_value());
    REQUIRE(adamw.schedule.kind == ScheduleKind::constant);
    REQUIRE(read(Json::parse(R"({"name": "adam", "lr": 0.001})")).weight_decay == 0);
    const OptimConfig cosine = read(Json::parse(R"({"name": "sgd", "lr": 0.5, "schedule": {"name": "cosine"}})"), 777);
    REQUIRE(cosine.schedule.total_steps == 777);  // the run's max_steps
    REQUIRE(cosine.schedule.warmup_steps == 0);
    REQUIRE(cosine.momentum == 0);
}

TEST_CASE("optimizer config reads every key and prints itself back resolved", "[unit]") {
    const Json section = Json::parse(R"({"name": "sgd", "lr": 0.5, "momentum": 0.9, "nesterov": true,
        "weight_decay": 0.0001, "clip_grad_norm": 1.0,
        "schedule": {"name": "linear", "warmup_steps": 10, "total_steps": 100, "min_lr": 0.05}})");
    const OptimConfig config = read(section);
    REQUIRE(config.momentum == 0.9);
    REQUIRE(config.nesterov);
    REQUIRE(config.clip_grad_norm == 1.0);
    REQUIRE(config.schedule.min_lr == 0.05);
    REQUIRE(config.lr_at(10) == 0.5);
    REQUIRE(config.to_json() == section);
    const Json noam = Json::parse(R"({"name": "adam", "betas": [0.9, 0.98], "eps": 1e-9,
        "schedule": {"name": "noam", "warmup_steps": 4000, "d_model": 512}})");
    const Json resolved = read(noam).to_json();
    REQUIRE(resolved["schedule"]["scale"] == 1.0);
    REQUIRE(resolved["weight_decay"] == 0.0);
    REQUIRE(read(resolved).to_json() == resolved);
}

TEST_CASE("config print shows the optimizer's defaulted betas eps momentum and schedule", "[unit]") {
    for (const char* given : {R"({"name": "adam", "lr": 0.001})", R"({"name": "sgd", "lr": 0.1})"}) {
        const Json section = Json::parse(given);
        Json resolved;
        config::JsonReader reader(section, "optimizer", &resolved);
        const OptimConfig config = OptimConfig::from_json(reader, 100);
        INFO(given);
        // every value the optimizer uses, defaults included, is in what the reader recorded
        CHECK(resolved == config.to_json());
    }
    const Json adamw = Json::parse(R"({"name": "adamw", "lr": 0.001})");
    Json resolved;
    config::JsonReader reader(adamw, "optimizer", &resolved);
    OptimConfig::from_json(reader, 100);
    CHECK(resolved["betas"] == Json::parse("[0.9, 0.999]"));
    CHECK(resolved["eps"] == 1e-8);
}

TEST_CASE("make_optimizer builds the configured optimizer", "[unit]") {
    Tensor w = Tensor::from_data({1, -2}, {2}, DType::f64).set_requires_grad(true);
    const NamedParameters parameters = {{"w", w}};
    REQUIRE(dynamic_cast<Sgd*>(make_optimizer(read(Json::parse(R"({"name": "sgd", "lr": 1})")), parameters).get()));
    REQUIRE(dynamic_cast<AdamW*>(make_optimizer(read(Json::parse(R"({"name": "adamw", "lr": 1})")), parameters).get()));
    auto adam = make_optimizer(read(Json::parse(R"({"name": "adam", "lr": 1})")), parameters);
    REQUIRE(dynamic_cast<Adam*>(adam.get()));
    REQUIRE_FALSE(dynamic_cast<AdamW*>(adam.get()));
    REQUIRE(adam->state().count("optimizer.exp_avg.w"));
}

TEST_CASE("optimizer config errors name their JSON path", "[unit]") {
    const std::vector<std::pair<const char*, const char*>> cases = {
        {R"({"lr": 0.1})", "optimizer.name: missing (required)"},
        {R"({"name": "adan", "lr": 0.1})", "optimizer.name: expected one of \"sgd\", \"adam\", \"adamw\", got \"adan\" (did you mean \"adam\"?)"},
        {R"({"name": "adam"})", "optimizer.lr: missing (required)"},
        {R"({"name": "adam", "lr": 0})", "optimizer.lr: expected a number > 0, got 0"},
        {R"({"name": "adam", "lr": -1})", "optimizer.lr: expected a number > 0, got -1"},
        {R"({"name": "adam", "lr": "fast"})", "optimizer.lr: expected a number, got \"fast\""},
        {R"({"name": "adam", "lr": 0.1, "betas": [0.9]})", "optimizer.betas: expected a list of two numbers"},
        {R"({"name": "adam", "lr": 0.1, "betas": [0.9, 1.0]})", "optimizer.betas[1]: expected a number in [0, 1), got 1.0"},
        {R"({"name": "adam", "lr": 0.1, "betas": [-0.1, 0.9]})", "optimizer.betas[0]: expected a number in [0, 1), got -0.1"},
        {R"({"name": "adam", "lr": 0.1, "eps": 0})", "optimizer.eps: expected a number > 0, got 0"},
        {R"({"name": "adamw", "lr": 0.1, "weight_decay": -0.1})", "optimizer.weight_decay: expected a number ≥ 0, got -0.1"},
        {R"({"name": "adam", "lr": 0.1, "momentum": 0.9})", "optimizer.momentum: not used by the \"adam\" optimizer"},
        {R"({"name": "sgd", "lr": 0.1, "momentum": 1})", "optimizer.momentum: expected a number in [0, 1), got 1"},
        {R"({"name": "sgd", "lr": 0.1, "nesterov": true})", "optimizer.nesterov: needs momentum > 0"},
        {R"({"name": "sgd", "lr": 0.1, "nesterov": 1, "momentum": 0.9})", "optimizer.nesterov: expected true or false"},
        {R"({"name": "sgd", "lr": 0.1, "betas": [0.9, 0.99]})", "optimizer.betas: not used by the \"sgd\" optimizer"},
        {R"({"name": "sgd", "lr": 0.1, "clip_grad_norm": 0})", "optimizer.clip_grad_norm: expected a number > 0, got 0"},
        {R"({"name": "sgd", "lr": 0.1, "weight_decy": 0})", "optimizer.weight_decy: unknown key (did you mean 'weight_decay'?)"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": "cosine"})", "optimizer.schedule: expected an object, got \"cosine\""},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {}})", "optimizer.schedule.name: missing (required)"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "cosin"}})", "optimizer.schedule.name: expected one of"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "linear", "warmup_steps": 20, "total_steps": 10}})",
         "optimizer.schedule.warmup_steps: expected an integer in [0, 10], got 20"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "linear", "total_steps": 0}})",
         "optimizer.schedule.total_steps: expected an integer ≥ 1, got 0"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "cosine", "min_lr": 0.2}})",
         "optimizer.schedule.min_lr: expected a number in [0, "},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "cosine", "warmup_step": 5}})",
         "optimizer.schedule.warmup_step: unknown key (did you mean 'warmup_steps'?)"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "cosine", "d_model": 5}})",
         "optimizer.schedule.d_model: not used by the \"cosine\" schedule"},
        {R"({"name": "sgd", "lr": 0.1, "schedule": {"name": "constant", "warmup_steps": 5}})",
         "optimizer.schedule.warmup_steps: not used by the \"constant\" schedule"},
        {R"({"name": "adam", "lr": 0.1, "schedule": {"name": "noam", "warmup_steps": 5, "d_model": 8}})",
         "optimizer.lr: not used by the \"noam\" schedule"},
        {R"({"name": "adam", "schedule": {"name": "noam", "warmup_steps": 5}})", "optimizer.schedule.d_model: missing (required)"},
        {R"({"name": "adam", "schedule": {"name": "noam", "warmup_steps": 0, "d_model": 8}})",
         "optimizer.schedule.warmup_steps: expected an integer ≥ 1, got 0"},
        {R"({"name": "adam", "schedule": {"name": "noam", "warmup_steps": 5, "d_model": 8, "scale": 0}})",
         "optimizer.schedule.scale: expected a number > 0, got 0"},
        {R"({"name": "adam", "schedule": {"name": "noam", "warmup_steps": 5, "d_model": 8, "min_lr": 0}})",
         "optimizer.schedule.min_lr: not used by the \"noam\" schedule"},
        // read() runs with max_steps 1000: steps 501–1000 would train at rate 0
        {R"({"name": "adam", "lr": 0.1, "schedule": {"name": "cosine", "total_steps": 500}})",
         "optimizer.schedule.total_steps is 500 but train.max_steps is 1000"},
    };
    for (const auto& [text, message] : cases) {
        INFO(text);
        REQUIRE_THROWS_WITH(read(Json::parse(text)), Catch::StartsWith(message));
    }
    // A floor above 0 after total_steps is a choice, not a mistake.
    CHECK(read(Json::parse(R"({"name": "adam", "lr": 0.1, "schedule": {"name": "linear", "total_steps": 500, "min_lr": 0.01}})"))
              .lr_at(900) == 0.01);
}
