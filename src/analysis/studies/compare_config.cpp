// Reading a comparison config: shared data/optimizer/train sections, the variants, which two the
// built-in predictions compare and the config's own predictions (both optional), and how much
// analysis to do.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "analysis/studies/compare_config.h"
#include "analysis/studies/gradient_probe.h"
#include "analysis/studies/run_measures.h"
#include "config/json_file.h"
#include "config/seed_range.h"
#include "train/run_config.h"
#include "train/run_name.h"

namespace tf {

namespace {

// A variant's runs are named <variant>-seed<N>: with N up to 19 digits, that stays within
// train::kMaxRunNameBytes.
constexpr std::size_t kMaxVariantNameBytes = 64;
// A length sweep's runs are <variant>-len<L>-seed<N>, L up to 6 digits.
constexpr int64_t kMaxSweepLength = 999999;
static_assert(kMaxVariantNameBytes + std::char_traits<char>::length("-len-seed") + 6 + 19 <= train::kMaxRunNameBytes);

CompareVariant read_variant(config::JsonReader& reader) {
    CompareVariant variant;
    variant.name = reader.string("name");
    // It names the variant's run directories, runs/<name>/runs/<variant>-seed<N>.
    if (variant.name.empty() || variant.name.size() > kMaxVariantNameBytes ||
        variant.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
        throw ConfigError(reader.path_of("name") + ": expected 1 to " + std::to_string(kMaxVariantNameBytes) +
                          " lower-case letters, digits and _, got " + config::describe(variant.name));
    variant.model = reader.raw("model");
    if (!variant.model.is_object()) throw ConfigError(reader.path_of("model") + ": expected an object, got " + config::describe(variant.model));
    variant.optimizer = reader.has("optimizer") ? reader.raw("optimizer") : config::Json::object();
    variant.train = reader.has("train") ? reader.raw("train") : config::Json::object();
    reader.finish({"optimizer", "train"});
    return variant;
}

// Both must name a listed variant, and two different ones: the predictions compare them.
PredictionVariants read_prediction_variants(config::JsonReader& reader, const std::vector<std::string>& variant_names) {
    PredictionVariants pair;
    pair.baseline = reader.choice("baseline", variant_names);
    pair.attention = reader.choice("attention", variant_names);
    if (pair.attention == pair.baseline)
        throw ConfigError(reader.path_of("attention") + ": expected a variant other than the baseline, got " +
                          config::describe(pair.attention) + " for both");
    return pair;
}

// `value` must name a listed variant; `path` names it in the error.
std::string read_variant_name(const config::Json& value, const std::string& path, const std::vector<std::string>& variant_names) {
    std::string list;
    for (const auto& name : variant_names) list += (list.empty() ? "\"" : ", \"") + name + "\"";
    if (!value.is_string()) throw ConfigError(path + ": expected one of " + list + ", got " + config::describe(value));
    const std::string name = value.get<std::string>();
    if (std::find(variant_names.begin(), variant_names.end(), name) == variant_names.end()) {
        const std::string suggestion = config::closest_match(name, variant_names);
        throw ConfigError(path + ": expected one of " + list + ", got " + config::describe(value) +
                          (suggestion.empty() ? "" : " (did you mean \"" + suggestion + "\"?)"));
    }
    return name;
}

// {"claim": text, "measure": name, "variants": [first, second], "difference": [low, high]}: the
// claim is quoted in the report; the range is what first − second is predicted to lie in.
OwnPrediction read_own_prediction(config::JsonReader& reader, const std::vector<std::string>& variant_names) {
    OwnPrediction prediction;
    prediction.claim = reader.string("claim");
    if (prediction.claim.find_first_not_of(" \t\n\r") == std::string::npos)
        throw ConfigError(reader.path_of("claim") + ": expected the claim in words (the report quotes it), got " +
                          config::describe(prediction.claim));
    prediction.measure = reader.choice("measure", run_measure_names());
    const config::Json& variants = reader.raw("variants");
    if (!variants.is_array() || variants.size() != 2)
        throw ConfigError(reader.path_of("variants") + ": expected two variant names [first, second] (the difference is "
                          "first − second), got " + config::describe(variants));
    prediction.first = read_variant_name(variants[0], reader.path_of("variants") + "[0]", variant_names);
    prediction.second = read_variant_name(variants[1], reader.path_of("variants") + "[1]", variant_names);
    if (prediction.first == prediction.second)
        throw ConfigError(reader.path_of("variants") + ": expected two different variants, got \"" + prediction.first + "\" twice");
    const config::Json& range = reader.raw("difference");
    if (!range.is_array() || range.size() != 2)
        throw ConfigError(reader.path_of("difference") + ": expected [low, high], the range first − second is predicted to lie in, got " +
                          config::describe(range));
    for (std::size_t i = 0; i < 2; ++i)
        // JSON has no infinity, so an open end is written "inf" or null: refused, since a range without
        // an end commits to little (write the measure's own limit, 1 for an accuracy, instead).
        if (!range[i].is_number() || !std::isfinite(range[i].get<double>()))
            throw ConfigError(reader.path_of("difference") + "[" + std::to_string(i) + "]: expected a finite number, got " +
                              config::describe(range[i]));
    prediction.low = range[0].get<double>();
    prediction.high = range[1].get<double>();
    if (prediction.low > prediction.high)
        throw ConfigError(reader.path_of("difference") + ": expected [low, high] with low ≤ high, got " + config::describe(range));
    reader.finish();
    return prediction;
}

// "baseline" and "attention" (together) choose the pair the built-in predictions compare; "own"
// lists the config's own predictions. Either, or both.
void read_predictions(config::JsonReader& reader, const std::vector<std::string>& variant_names, CompareConfig& compare) {
    if (reader.has("baseline") || reader.has("attention")) compare.predictions = read_prediction_variants(reader, variant_names);
    if (reader.has("own")) {
        const config::Json& own = reader.raw("own");
        if (!own.is_array() || own.empty())
            throw ConfigError(reader.path_of("own") + ": expected a list of at least one {\"claim\", \"measure\", \"variants\", "
                              "\"difference\"} object, got " + config::describe(own));
        for (std::size_t i = 0; i < own.size(); ++i) {
            config::JsonReader item(own[i], reader.path_of("own") + "[" + std::to_string(i) + "]");
            compare.own_predictions.push_back(read_own_prediction(item, variant_names));
        }
    }
    reader.finish({"baseline", "attention", "own"});
    if (!compare.predictions && compare.own_predictions.empty())
        throw ConfigError(reader.path() + ": expected \"baseline\" and \"attention\" (the built-in predictions), \"own\" "
                          "(the config's own), or both");
}

// At least two lengths, increasing: a decay needs two points, and the plot reads left to right.
LengthSweep read_length_sweep(config::JsonReader& reader) {
    LengthSweep sweep;
    sweep.max_lengths = reader.integers("max_lengths", 1, kMaxSweepLength);
    if (sweep.max_lengths.size() < 2)
        throw ConfigError(reader.path_of("max_lengths") + ": expected at least two lengths, got " +
                          std::to_string(sweep.max_lengths.size()));
    for (std::size_t i = 1; i < sweep.max_lengths.size(); ++i)
        if (sweep.max_lengths[i] <= sweep.max_lengths[i - 1])
            throw ConfigError(reader.path_of("max_lengths") + ": expected increasing lengths, got " +
                              std::to_string(sweep.max_lengths[i]) + " after " + std::to_string(sweep.max_lengths[i - 1]));
    reader.finish();
    return sweep;
}

}  // namespace

CompareConfig load_compare_config(const std::string& path, const std::vector<std::string>& overrides) {
    return compare_config_from_json(config::load_json_file(path), overrides, std::filesystem::path(path).stem().string());
}

CompareConfig compare_config_from_json(config::Json root, const std::vector<std::string>& overrides, const std::string& default_name) {
    for (const auto& assignment : overrides) config::apply_override(root, assignment);
    CompareConfig compare;
    config::JsonReader top(root, "", &compare.resolved);
    compare.name = top.string("name", default_name);
    // The report goes in runs/<name>: an absolute path or ".." would put it anywhere.
    if (const std::string problem = train::run_name_problem(compare.name); !problem.empty())
        throw ConfigError("name: expected one plain path component for the directory runs/<name>, got " +
                          config::describe(compare.name) + ": " + problem);
    compare.seeds = top.has("seeds") ? top.integers("seeds", config::kSeedRange.min, config::kSeedRange.max) : compare.seeds;
    if (compare.seeds.empty()) throw ConfigError("seeds: expected at least one seed");
    // A seed listed twice is one run counted twice: "2 seeds" of one run would report a zero-width interval.
    for (std::size_t i = 1; i < compare.seeds.size(); ++i)
        for (std::size_t first = 0; first < i; ++first)
            if (compare.seeds[i] == compare.seeds[first])
                throw ConfigError("seeds[" + std::to_string(i) + "]: seed " + std::to_string(compare.seeds[i]) + " is already seeds[" +
                                  std::to_string(first) + "]; each seed is one run, so list every seed once");
    compare.kernels = top.choice("kernels", kernels::KernelPath::fast);
    compare.data = top.raw("data");
    compare.optimizer = top.has("optimizer") ? top.raw("optimizer") : config::Json::object();
    compare.train = top.has("train") ? top.raw("train") : config::Json::object();
    if (top.has("budget")) {
        config::JsonReader budget = top.object("budget");
        compare.budget = read_budget(budget);
    }
    const config::Json& variants = top.raw("variants");
    if (!variants.is_array() || variants.size() < 2)
        throw ConfigError("variants: expected a list of at least two {\"name\", \"model\"} objects");
    std::set<std::string> names;
    for (std::size_t i = 0; i < variants.size(); ++i) {
        config::JsonReader reader(variants[i], "variants[" + std::to_string(i) + "]");
        compare.variants.push_back(read_variant(reader));
        if (!names.insert(compare.variants.back().name).second)
            throw ConfigError("variants[" + std::to_string(i) + "].name: \"" + compare.variants.back().name + "\" is used twice");
    }
    if (top.has("predictions")) {
        config::JsonReader predictions = top.object("predictions");
        read_predictions(predictions, {names.begin(), names.end()}, compare);
    }
    if (top.has("length_sweep")) {
        config::JsonReader sweep = top.object("length_sweep");
        compare.length_sweep = read_length_sweep(sweep);
    }
    if (top.has("analysis")) {
        config::JsonReader analysis = top.object("analysis");
        compare.examples = analysis.integer("examples", compare.examples, {.min = 1, .max = 1000});
        compare.probes = analysis.integer("probes", compare.probes, {.min = 0, .max = kMaxProbes});
        analysis.finish();
    }
    top.finish({"optimizer", "train"});
    return compare;
}

}  // namespace tf
