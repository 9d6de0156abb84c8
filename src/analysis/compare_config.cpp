// Reading a comparison config: shared data/optimizer/train sections, the variants, which two the
// seed predictions compare (optional), and how much analysis to do.
#include <filesystem>
#include <set>

#include "analysis/compare.h"
#include "analysis/gradient_probe.h"
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
    reader.finish();
    return pair;
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
    config::Json root = config::load_json_file(path);
    for (const auto& assignment : overrides) config::apply_override(root, assignment);
    CompareConfig compare;
    config::JsonReader top(root, "", &compare.resolved);
    compare.name = top.string("name", std::filesystem::path(path).stem().string());
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
        compare.predictions = read_prediction_variants(predictions, {names.begin(), names.end()});
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
