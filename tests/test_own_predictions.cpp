// A comparison config's own predictions: every bad one is a config error naming its JSON path (and
// `config check` exits 2 on it); the verdicts follow the seed interval on hand-made numbers; the
// measures table and docs/experiments.md list the same measures; and a tiny comparison's report
// quotes each claim with its range, the measured difference and the verdict, in all three files.
#include "catch.h"
#include <algorithm>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare.h"
#include "analysis/studies/own_predictions.h"
#include "analysis/studies/run_measures.h"
#include "run_helpers.h"
#include "source_paths.h"
#include "tiny_comparison.h"
#include "util/files.h"
#include "xml_check.h"

using namespace tf;
using Json = nlohmann::json;

namespace {

// The tiny comparison with one own prediction, the one each bad case below breaks.
Json with_own_prediction() {
    Json config = Json::parse(test::tiny_comparison());
    config["predictions"]["own"] = Json::array({{{"claim", "attention helps copying"},
                                                 {"measure", "test_token_accuracy"},
                                                 {"variants", {"gru_attention", "gru"}},
                                                 {"difference", {0.1, 0.5}}}});
    return config;
}

struct BadPrediction {
    const char* what;
    const char* pointer;   // the JSON pointer of the value replaced ...
    Json value;            // ... and what replaces it (null with erase: the key is removed)
    bool erase;
    const char* expected_start;
};

std::vector<BadPrediction> bad_predictions() {
    return {
        {"unknown measure", "/predictions/own/0/measure", "test_token_acuracy", false,
         "predictions.own[0].measure: expected one of \"test_token_accuracy\", \"test_sequence_accuracy\""},
        {"a variant not in the config", "/predictions/own/0/variants/1", "lstm", false,
         "predictions.own[0].variants[1]: expected one of \"gru\", \"gru_attention\", \"transformer\", got \"lstm\""},
        {"one variant twice", "/predictions/own/0/variants/1", "gru_attention", false,
         "predictions.own[0].variants: expected two different variants, got \"gru_attention\" twice"},
        {"three variants", "/predictions/own/0/variants", Json::array({"gru", "gru_attention", "transformer"}), false,
         "predictions.own[0].variants: expected two variant names [first, second]"},
        {"low above high", "/predictions/own/0/difference", Json::array({0.5, 0.1}), false,
         "predictions.own[0].difference: expected [low, high] with low ≤ high, got [0.5,0.1]"},
        {"an infinite bound, written as JSON can", "/predictions/own/0/difference/1", "inf", false,
         "predictions.own[0].difference[1]: expected a finite number, got \"inf\""},
        {"an open bound", "/predictions/own/0/difference/0", nullptr, false,
         "predictions.own[0].difference[0]: expected a finite number, got null"},
        {"one bound", "/predictions/own/0/difference", Json::array({0.1}), false,
         "predictions.own[0].difference: expected [low, high]"},
        {"no claim", "/predictions/own/0/claim", nullptr, true, "predictions.own[0].claim: missing (required)"},
        {"a blank claim", "/predictions/own/0/claim", "  ", false, "predictions.own[0].claim: expected the claim in words"},
        {"no measure", "/predictions/own/0/measure", nullptr, true, "predictions.own[0].measure: missing (required)"},
        {"an unknown key", "/predictions/own/0/rnage", Json::array({0, 1}), false, "predictions.own[0].rnage: unknown key"},
        {"an empty list", "/predictions/own", Json::array(), false, "predictions.own: expected a list of at least one"},
        {"a prediction that is not an object", "/predictions/own/0", "attention helps", false,
         "predictions.own[0]: expected an object"},
        {"an unknown key beside own", "/predictions/onw", Json::array(), false, "predictions.onw: unknown key (did you mean 'own'?)"},
    };
}

Json broken(const BadPrediction& bad) {
    Json config = with_own_prediction();
    const Json::json_pointer pointer(bad.pointer);
    if (bad.erase) config[pointer.parent_pointer()].erase(pointer.back());
    else config[pointer] = bad.value;
    return config;
}

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("own predictions: each bad one is a config error naming its JSON path", "[unit]") {
    test::TempDir dir;
    const std::string path = dir / "bad.json";
    test::write_text(path, with_own_prediction().dump());
    REQUIRE(load_compare_config(path, {}).own_predictions.size() == 1);
    for (const BadPrediction& bad : bad_predictions()) {
        INFO(bad.what);
        test::write_text(path, broken(bad).dump());
        REQUIRE_THROWS_AS(load_compare_config(path, {}), ConfigError);
        REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith(bad.expected_start));
    }
    // The unknown measure's message lists every valid measure and suggests the near one.
    test::write_text(path, broken(bad_predictions()[0]).dump());
    for (const std::string& name : run_measure_names()) CHECK_THROWS_WITH(load_compare_config(path, {}), Catch::Contains(name));
    CHECK_THROWS_WITH(load_compare_config(path, {}), Catch::Contains("did you mean \"test_token_accuracy\""));
}

TEST_CASE("own predictions stand alone, the built-in pair goes together, and a predictions section says at least one", "[unit]") {
    test::TempDir dir;
    const std::string path = dir / "config.json";
    Json config = with_own_prediction();
    config["predictions"].erase("baseline");
    config["predictions"].erase("attention");
    test::write_text(path, config.dump());
    const CompareConfig own_only = load_compare_config(path, {});
    CHECK_FALSE(own_only.predictions.has_value());
    REQUIRE(own_only.own_predictions.size() == 1);
    const OwnPrediction& read = own_only.own_predictions[0];
    CHECK(read.claim == "attention helps copying");
    CHECK(read.measure == "test_token_accuracy");
    CHECK(read.first == "gru_attention");
    CHECK(read.second == "gru");
    CHECK(read.low == 0.1);
    CHECK(read.high == 0.5);
    // The resolved config keeps them, as compare.resolved.json shows.
    CHECK(own_only.resolved["predictions"]["own"][0]["claim"] == "attention helps copying");

    const CompareConfig built_in_only = load_compare_config(test::kTinyComparisonPath, {});
    CHECK(built_in_only.predictions.has_value());
    CHECK(built_in_only.own_predictions.empty());

    config["predictions"]["attention"] = "gru_attention";   // without its baseline
    test::write_text(path, config.dump());
    CHECK_THROWS_WITH(load_compare_config(path, {}), "predictions.baseline: missing (required)");
    config["predictions"] = Json::object();
    test::write_text(path, config.dump());
    CHECK_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("predictions: expected \"baseline\" and \"attention\""));
}

TEST_CASE("config check exits 2 on a bad own prediction, naming its path", "[integration]") {
    test::TempDir dir;
    const std::string path = dir / "bad.json";
    test::write_text(path, broken(bad_predictions()[1]).dump());
    const test::CliResult refused = test::run_cli({"config", "check", path});
    INFO(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("predictions.own[0].variants[1]: expected one of"));
    // print shows the comparison resolved, its own predictions included.
    test::write_text(path, with_own_prediction().dump());
    const test::CliResult printed = test::run_cli({"config", "print", path});
    REQUIRE(printed.exit_code == 0);
    CHECK(Json::parse(printed.out)["predictions"]["own"][0]["measure"] == "test_token_accuracy");
}

TEST_CASE("own predictions are judged by the 95 % interval of the per-seed difference", "[unit]") {
    OwnPrediction prediction{"attention helps", "test_token_accuracy", "gru_attention", "gru", 0.0, 1.0};
    // d = {0.2, 0.3, 0.4}, a difference of accuracies, so in [−1, 1]: its interval is taken on the
    // logit of u = (d + 1)/2 = {0.6, 0.65, 0.7}, z̄ ± t_{0.975,2}·s_z/√3 mapped back by d = 2/(1 + e^−z) − 1.
    const auto logit = [](double u) { return std::log(u / (1 - u)); };
    const double z1 = logit(0.6), z2 = logit(0.65), z3 = logit(0.7), z_mean = (z1 + z2 + z3) / 3;
    const double z_sd = std::sqrt(((z1 - z_mean) * (z1 - z_mean) + (z2 - z_mean) * (z2 - z_mean) + (z3 - z_mean) * (z3 - z_mean)) / 2);
    const auto back = [](double z) { return 2 / (1 + std::exp(-z)) - 1; };
    const double low = back(z_mean - 4.303 * z_sd / std::sqrt(3.0)), high = back(z_mean + 4.303 * z_sd / std::sqrt(3.0));
    REQUIRE(low == Approx(0.0375).margin(1e-4));   // [0.0375, 0.5273]
    REQUIRE(high == Approx(0.5273).margin(1e-4));
    const std::vector<double> first = {0.7, 0.8, 0.9}, second = {0.5, 0.5, 0.5};
    const JudgedOwnPrediction wide = judge_own_prediction(prediction, first, second);
    REQUIRE(wide.differences.size() == 3);
    CHECK(wide.differences[2] == Approx(0.4));
    CHECK(wide.interval.mean == Approx(back(z_mean)));
    CHECK(wide.interval.low == Approx(low));
    CHECK(wide.interval.high == Approx(high));
    CHECK(wide.verdict == Verdict::held);
    CHECK(wide.verdict_text == "held");

    prediction.low = 0.6, prediction.high = 0.9;   // the whole interval is below
    const JudgedOwnPrediction below = judge_own_prediction(prediction, first, second);
    CHECK(below.verdict == Verdict::not_held);
    CHECK(below.verdict_text == "not held (below the predicted range)");

    prediction.low = -0.5, prediction.high = 0.03;   // the whole interval is above
    CHECK(judge_own_prediction(prediction, first, second).verdict_text == "not held (above the predicted range)");

    prediction.low = 0.1, prediction.high = 1.0;   // 0.1 lies inside [0.0375, 0.5273]
    const JudgedOwnPrediction straddles = judge_own_prediction(prediction, first, second);
    CHECK(straddles.verdict == Verdict::undecided);
    CHECK(straddles.verdict_text == "undecided (the interval [0.0375, 0.527] straddles 0.1)");
    CHECK(own_predictions_json({straddles})[0]["few_seeds"] == false);

    // A difference of losses has no end: its interval is Student's t as it stands.
    const JudgedOwnPrediction losses = judge_own_prediction({"lower loss", "test_loss", "gru_attention", "gru", -1.0, 0.0},
                                                            {0.5, 0.6, 0.7}, {1.0, 1.0, 1.0});
    CHECK(losses.interval.mean == Approx(-0.4));
    CHECK(losses.interval.low == Approx(-0.4 - 4.303 * 0.1 / std::sqrt(3.0)));

    // A seed with no value in either run is left out; one seed left has no interval.
    const JudgedOwnPrediction one_seed = judge_own_prediction(prediction, {0.7, kNan}, {0.5, 0.5});
    CHECK(one_seed.interval.seeds == 1);
    CHECK(one_seed.verdict_text == "undecided (one seed: no interval; run more seeds)");
    CHECK(own_predictions_json({one_seed})[0]["few_seeds"] == true);
    const JudgedOwnPrediction none = judge_own_prediction(prediction, {kNan, kNan}, {0.5, 0.5});
    CHECK(none.verdict_text == "undecided (not measurable)");
    CHECK(own_predictions_json({none})[0]["mean"].is_null());
}

TEST_CASE("docs/experiments.md lists every measure an own prediction may name", "[unit]") {
    const std::string docs = read_file(std::string(TF_SOURCE_DIR) + "/docs/experiments.md");
    for (const RunMeasure& measure : run_measures()) {
        INFO(measure.name);
        const std::size_t row = docs.find(std::string("| `") + measure.name + "` |");
        REQUIRE(row != std::string::npos);
        // The row's last column is the measure's domain and the scale its interval is taken on.
        const Domain& domain = measure.domain;
        REQUIRE(std::isfinite(domain.lower));
        const bool two_ends = std::isfinite(domain.upper);
        const std::string column = " [" + format_number(domain.lower) + ", " + (two_ends ? format_number(domain.upper) + "], logit" : "∞), log") + " |";
        const std::string line = docs.substr(row, docs.find('\n', row) - row);
        CHECK(line.substr(line.size() - std::min(line.size(), column.size())) == column);
        CHECK(find_run_measure(measure.name) == &measure);
    }
    CHECK(find_run_measure("test_accuracy") == nullptr);
}

TEST_CASE("a tiny comparison's report quotes each own prediction with its range, measurement and verdict", "[integration]") {
    test::TempDir root;
    Json config = Json::parse(test::tiny_comparison());
    config["variants"].erase(2);   // the transformer: two recurrent variants are enough here
    config.erase("predictions");   // only the config's own, no built-in ones
    config["predictions"]["own"] = Json::array(
        {{{"claim", "attention helps | copying <b>at once</b>"}, {"measure", "test_token_accuracy"},
          {"variants", {"gru_attention", "gru"}}, {"difference", {0.1, 0.5}}},
         // Both variants are run from the same seeds, and the attention adds parameters: a fixed positive difference.
         {{"claim", "attention costs parameters"}, {"measure", "parameters"}, {"variants", {"gru", "gru_attention"}},
          {"difference", {-1e6, -1}}}});
    const std::string path = root / "own.json";
    test::write_text(path, config.dump());
    const std::string report = read_file(run_compare(load_compare_config(path, {}), {root / "out", "tapeformer compare own.json", true}));

    CHECK(report.find("## Own predictions, measured") != std::string::npos);
    CHECK(report.find("Attention-versus-RNN predictions") == std::string::npos);
    CHECK(report.find("| claim | measure: first − second | predicted range | measured: mean [95 % interval] | verdict |") !=
          std::string::npos);
    // The claim is quoted as the student wrote it, its markup shown as characters.
    CHECK(report.find("“attention helps &#124; copying &lt;b&gt;at once&lt;/b&gt;”") != std::string::npos);
    CHECK(report.find("test_token_accuracy: gru_attention − gru") != std::string::npos);
    CHECK(report.find("[+0.1, +0.5]") != std::string::npos);

    const auto json = Json::parse(read_file(root / "out/report.json"));
    CHECK(json["predictions"].empty());
    REQUIRE(json["own_predictions"].size() == 2);
    const Json& accuracy = json["own_predictions"][0];
    CHECK(accuracy["claim"] == "attention helps | copying <b>at once</b>");
    CHECK(accuracy["range"] == Json::array({0.1, 0.5}));
    CHECK(accuracy["seeds"] == 2);
    // The differences are the runs' own test accuracies, paired by seed.
    const Json& gru_runs = json["variants"][0]["runs"];
    const Json& attention_runs = json["variants"][1]["runs"];
    REQUIRE(accuracy["differences"].size() == 2);
    for (std::size_t s = 0; s < 2; ++s)
        CHECK(accuracy["differences"][s].get<double>() ==
              Approx(attention_runs[s]["test_token_accuracy"].get<double>() - gru_runs[s]["test_token_accuracy"].get<double>()));
    const std::string verdict = accuracy["verdict"];
    CHECK((verdict == "held" || verdict == "not_held" || verdict == "undecided"));
    CHECK(report.find(accuracy["verdict_text"].get<std::string>()) != std::string::npos);
    // Parameters do not change with the seed: a zero-width interval, wholly inside the range.
    const Json& parameters = json["own_predictions"][1];
    CHECK(parameters["low"] == parameters["high"]);
    CHECK(parameters["mean"].get<double>() ==
          gru_runs[0]["parameters"].get<double>() - attention_runs[0]["parameters"].get<double>());
    CHECK(parameters["verdict"] == "held");

    const std::string page = read_file(root / "out/report.html");
    CHECK(test::xml_problem(page) == "");
    CHECK(page.find("attention costs parameters") != std::string::npos);
    CHECK(page.find("<b>at once</b>") == std::string::npos);
}
