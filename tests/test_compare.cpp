// `compare` end to end on a tiny budget: the report lists every variant and every prediction,
// report.json holds the numbers, every SVG is well-formed with one series per variant, and a
// second call reuses the finished runs (and with --figures writes slide-size copies); without
// "predictions", any variants compare and none is judged.
#include "catch.h"
#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare.h"
#include "analysis/studies/compare_runs.h"
#include "analysis/reports/report.h"
#include "run_helpers.h"
#include "tiny_comparison.h"
#include "util/files.h"
#include "xml_check.h"
#include "source_paths.h"

using namespace tf;


TEST_CASE("compare writes a report with every variant, prediction and plot, and reuses finished runs", "[integration]") {
    const test::TempDir dir("tapeformer-compare");
    const std::filesystem::path root = dir.path();
    const CompareConfig config = load_compare_config(test::kTinyComparisonPath, {});
    CompareOptions options{(root / "out").string(), "tapeformer compare tiny.json", true};
    const std::string report_path = run_compare(config, options);

    const std::string report = read_file(report_path);
    for (const char* variant : {"gru", "gru_attention", "transformer"}) CHECK(report.find(std::string("| ") + variant + " |") != std::string::npos);
    for (const char* claim : {"+0.10 to +0.20", "about 10×", "full sequence as context", "about 20 tokens"})
        CHECK(report.find(claim) != std::string::npos);
    // The findings box opens the page, before the first table; every verdict has its confound.
    CHECK(report.find("> **Findings**") < report.find("| variant | parameters"));
    CHECK(report.find("> - **Ranking** by test token accuracy (mean of 2 seeds): ") != std::string::npos);
    CHECK(report.find("| prediction | measured: mean [95 % interval] | verdict | known confound |") != std::string::npos);
    CHECK(report.find("Budget: equal steps, 6 steps each.") != std::string::npos);
    // The decoded scores' table: a row per variant, after the table's header.
    const std::size_t decoded = report.find("| variant | decoded exact match | character error rate¹ | chrF | BLEU |");
    REQUIRE(decoded != std::string::npos);
    // Its footnote says why the error rate can pass 1.
    CHECK(report.find("¹ The character error rate can exceed 1: it counts insertions", decoded) != std::string::npos);
    // Two seeds: the page warns that its verdicts rest on too few.
    const std::string warning = "Warning: 4 of the 4 verdicts below rest on fewer than 3 seeds.";
    CHECK(report.find(warning) < report.find("## Attention-versus-RNN predictions"));
    for (const char* variant : {"gru", "gru_attention", "transformer"})
        CHECK(report.find(std::string("| ") + variant + " |", decoded) != std::string::npos);

    // The page beside it: well-formed, a table row per variant, the predictions, small.
    const std::string page = read_file((root / "out" / "report.html").string());
    CHECK(test::xml_problem(page) == "");
    for (const char* variant : {"gru", "gru_attention", "transformer"})
        CHECK(page.find(std::string("<tr><td>") + variant + "</td>") != std::string::npos);
    CHECK(page.find("full sequence as context") != std::string::npos);
    CHECK(page.find(warning) != std::string::npos);
    CHECK(test::count_occurrences(page, "<aside class=\"findings\">") == 1);
    // The viewer: each variant's first seed, a kernel apiece, the attention variants' maps too.
    CHECK(test::count_occurrences(page, "<section class=\"attention-viewer\">") == 1);
    for (const char* variant : {"gru", "gru_attention", "transformer"})
        CHECK(page.find(std::string("\">") + variant + " (seed 1): dependency kernel") != std::string::npos);
    CHECK(page.find("gru_attention (seed 1): attention, head 0 (additive)") != std::string::npos);
    CHECK(page.find("transformer (seed 1): decoder.layers.0.cross_attn, head 1 (cross)") != std::string::npos);
    CHECK(page.find("(seed 2)") == std::string::npos);
    CHECK(page.size() < (2u << 20));

    const auto json = nlohmann::json::parse(read_file((root / "out" / "report.json").string()));
    REQUIRE(json["variants"].size() == 3);
    CHECK(json["variants"][0]["runs"].size() == 2);  // two seeds
    CHECK(json["variants"][1]["runs"][0]["accuracy_by_position"].size() >= 4);
    // Beside each accuracy, the number of test tokens it counts.
    for (const auto& run : json["variants"][1]["runs"]) {
        REQUIRE(run["tokens_by_position"].size() == run["accuracy_by_position"].size());
        CHECK(run["tokens_by_position"][0].get<int64_t>() > 0);
    }
    // The table prints each variant's parameter count whole, its thousands grouped ("101,504").
    for (const auto& variant : json["variants"]) {
        const double parameters = variant["runs"][0]["parameters"];
        REQUIRE(parameters >= 1000);
        CHECK(report.find("| " + variant["name"].get<std::string>() + " | " + format_count(parameters) + " |") != std::string::npos);
    }
    const auto& scores = json["variants"][1]["runs"][0]["test_decoded"];
    for (const char* key : {"exact_match", "cer", "chrf", "bleu"}) CHECK(scores.at(key).is_number());
    CHECK(scores["cer"].get<double>() >= 0);
    // Four predictions, each a mean with its interval over the two seeds and a three-way verdict.
    REQUIRE(json["predictions"].size() == 4);
    CHECK(json["few_seeds_warning"].get<std::string>().find(warning) == 0);
    for (const auto& prediction : json["predictions"]) {
        INFO(prediction.dump());
        CHECK(prediction["seeds"] == 2);
        CHECK(prediction["few_seeds"] == true);
        // Each interval stays among the values its measure can take: a gain in accuracy in [−1, 1],
        // a ratio and a receptive field ≥ 0, a share in [0, 1].
        const std::string id = prediction["id"];
        const double lowest = id == "accuracy" ? -1.0 : 0.0;
        if (prediction["low"].is_number()) CHECK(prediction["low"].get<double>() >= lowest);
        if (prediction["high"].is_number() && (id == "accuracy" || id == "context_attention"))
            CHECK(prediction["high"].get<double>() <= 1.0);
        const std::string verdict = prediction["verdict"];
        CHECK((verdict == "held" || verdict == "not_held" || verdict == "undecided"));
        if (prediction["mean"].is_number())
            CHECK((prediction["low"].get<double>() <= prediction["mean"].get<double>() &&
                   prediction["mean"].get<double>() <= prediction["high"].get<double>()));
    }
    // The scale-free gradient measures and the share of needed positions, per run.
    for (const auto& variant : json["variants"])
        for (const auto& run : variant["runs"]) {
            CHECK(run["gradient_noise_to_signal"].get<double>() > 0);
            CHECK(run["grad_norm_cv"].get<double>() >= 0);
            CHECK((run["needed_share"].get<double>() >= 0 && run["needed_share"].get<double>() <= 1));
        }
    CHECK(json.contains("length_sweep") == false);

    int plots = 0;
    for (const auto& entry : std::filesystem::directory_iterator(root / "out" / "plots")) {
        if (entry.path().extension() != ".svg") continue;
        ++plots;
        const std::string svg = read_file(entry.path().string());
        INFO(entry.path().string());
        CHECK(test::xml_problem(svg) == "");
        if (entry.path().stem() == "loss" || entry.path().stem() == "accuracy_by_position")
            CHECK(test::count_occurrences(svg, "class=\"series\"") == 3);
        CHECK(std::filesystem::exists(std::filesystem::path(entry.path()).replace_extension(".csv")));
    }
    CHECK(plots == 4 + 1 + 3);  // loss, accuracy, by position, by distance + the task's ideal kernel + one kernel per variant
    CHECK(report.find("The task's ideal kernel") != std::string::npos);

    // A second call, from the command line, finds every run finished and only measures again; with
    // --figures it writes each figure once more at slide size into a folder it creates.
    const auto stamp = std::filesystem::last_write_time(root / "out" / "runs" / "gru-seed1" / "metrics.jsonl");
    const test::CliResult again = test::run_cli({"compare", test::kTinyComparisonPath, "--run-dir", (root / "out").string(),
                                                 "--figures", (root / "slides" / "tiny").string(), "--quiet"});
    INFO(again.err);
    REQUIRE(again.exit_code == 0);
    CHECK(std::filesystem::last_write_time(root / "out" / "runs" / "gru-seed1" / "metrics.jsonl") == stamp);
    int slides = 0;
    for (const auto& entry : std::filesystem::directory_iterator(root / "out" / "plots")) {
        if (entry.path().extension() != ".svg") continue;
        const std::string slide = read_file((root / "slides" / "tiny" / entry.path().filename()).string());
        INFO(entry.path().filename().string());
        CHECK(test::xml_problem(slide) == "");
        CHECK(slide.find("width=\"1280\" height=\"720\"") != std::string::npos);
        CHECK(slide.find("font-size=\"24\"") != std::string::npos);
        ++slides;
    }
    CHECK(slides == plots);
    CHECK(read_file((root / "out" / "report.md").string()).find("--figures") != std::string::npos);
}

TEST_CASE("compare --figures naming a file exits 2 before training, saying so", "[integration]") {
    const test::TempDir dir("tapeformer-compare-figures");
    test::write_text(dir / "notes.txt", "mine");
    const test::CliResult refused =
        test::run_cli({"compare", test::kTinyComparisonPath, "--run-dir", dir / "comparison", "--figures", dir / "notes.txt"});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--figures") && Catch::Contains("is a file, not a folder"));
    CHECK_FALSE(std::filesystem::exists(dir / "comparison"));
    CHECK(test::read_text(dir / "notes.txt") == "mine");
}

TEST_CASE("comparison config errors name their path", "[unit]") {
    const test::TempDir dir("tapeformer-compare-config");
    const std::string path = dir / "bad.json";
    auto config = nlohmann::json::parse(test::tiny_comparison());
    config["predictions"]["baseline"] = "gruu";
    write_file_atomic(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("predictions.baseline: expected one of") &&
                                                           Catch::Contains("did you mean \"gru\""));
    config = nlohmann::json::parse(test::tiny_comparison());
    config["variants"][1]["name"] = "gru";
    write_file_atomic(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), "variants[1].name: \"gru\" is used twice");
}

TEST_CASE("a comparison's name is one plain path component, its variants' names short", "[unit]") {
    const test::TempDir dir("tapeformer-compare-config");
    const std::string path = dir / "bad.json";
    for (const std::string name : {"/tmp/elsewhere", "..", "a/b"}) {
        INFO(name);
        auto config = nlohmann::json::parse(test::tiny_comparison());
        config["name"] = name;
        write_file_atomic(path, config.dump());
        REQUIRE_THROWS_WITH(load_compare_config(path, {}),
                            Catch::StartsWith("name: expected one plain path component for the directory runs/<name>"));
    }
    auto config = nlohmann::json::parse(test::tiny_comparison());
    config["variants"][0]["name"] = std::string(65, 'g');
    write_file_atomic(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("variants[0].name: expected 1 to 64 lower-case letters"));
}

TEST_CASE("a comparison with a bad variant is refused before its directory is made", "[unit]") {
    test::TempDir root;
    nlohmann::json bad = nlohmann::json::parse(test::tiny_comparison());
    bad["variants"][2]["model"]["heads"] = 3;  // d_model 8 is not divisible by 3 heads
    const std::string path = root / "bad.json";
    test::write_text(path, bad.dump());
    CompareOptions options;
    options.out_dir = root / "out";
    options.quiet = true;
    REQUIRE_THROWS_WITH(run_compare(load_compare_config(path, {}), options),
                        Catch::StartsWith("variant \"transformer\": model.d_model") && Catch::Contains("heads"));
    CHECK_FALSE(std::filesystem::exists(root / "out"));
}

TEST_CASE("compare takes any two variants without predictions, and its table shows the validation loss", "[integration]") {
    test::TempDir root;
    nlohmann::json config = nlohmann::json::parse(test::tiny_comparison());
    config.erase("predictions");
    config["seeds"] = nlohmann::json::array({1});
    const nlohmann::json transformer = config["variants"][2]["model"];
    config["variants"] = nlohmann::json::array({{{"name", "ffn_narrow"}, {"model", transformer}}, {{"name", "ffn_wide"}, {"model", transformer}}});
    config["variants"][1]["model"]["ffn_hidden"] = 32;
    const std::string path = root / "ffn.json";
    test::write_text(path, config.dump());
    const std::string report = read_file(run_compare(load_compare_config(path, {}), {root / "out", "tapeformer compare ffn.json", true}));
    CHECK(report.find("| best validation loss |") != std::string::npos);
    CHECK(report.find("| ffn_wide |") != std::string::npos);
    CHECK(report.find("predictions, measured") == std::string::npos);
    const auto json = nlohmann::json::parse(read_file(root / "out/report.json"));
    CHECK(json["predictions"].empty());
    for (const auto& variant : json["variants"]) CHECK(variant["runs"][0]["best_valid_loss"].get<double>() > 0);
}

TEST_CASE("predictions that name a missing variant, or one variant twice, are config errors naming the path", "[unit]") {
    test::TempDir root;
    const std::string path = root / "bad.json";
    auto config = nlohmann::json::parse(test::tiny_comparison());
    config["variants"].erase(1);  // gru_attention, which the predictions still name
    test::write_text(path, config.dump());
    REQUIRE_THROWS_AS(load_compare_config(path, {}), ConfigError);
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("predictions.attention: expected one of"));
    config["predictions"]["attention"] = "gru";
    test::write_text(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("predictions.attention: expected a variant other than the baseline"));
}

TEST_CASE("runs_of_rank gives every run of a comparison to exactly one rank, shares differing by at most one", "[unit]") {
    for (const int ranks : {1, 2, 3, 7}) {
        std::vector<int> owners(6, 0);
        std::size_t smallest = 6, largest = 0;
        for (int rank = 0; rank < ranks; ++rank) {
            const std::vector<std::size_t> share = runs_of_rank(6, rank, ranks);
            for (const std::size_t run : share) ++owners.at(run);
            smallest = std::min(smallest, share.size()), largest = std::max(largest, share.size());
        }
        INFO(ranks << " ranks");
        CHECK(owners == std::vector<int>(6, 1));
        CHECK(largest - smallest <= 1);
    }
    // Seeds of one variant are listed together, so two ranks each get every variant.
    CHECK(runs_of_rank(6, 0, 2) == std::vector<std::size_t>{0, 2, 4});
    CHECK(runs_of_rank(6, 1, 2) == std::vector<std::size_t>{1, 3, 5});
}

TEST_CASE("a length sweep trains every variant at each maximum length and plots accuracy by input length", "[integration]") {
    test::TempDir root;
    nlohmann::json config = nlohmann::json::parse(test::tiny_comparison());
    config["seeds"] = nlohmann::json::array({1});
    config["variants"].erase(2);   // the transformer: the two recurrent variants are enough here
    config["length_sweep"] = {{"max_lengths", {4, 8}}};
    const std::string path = root / "sweep.json";
    test::write_text(path, config.dump());
    const std::string report = read_file(run_compare(load_compare_config(path, {}), {root / "out", "tapeformer compare sweep.json", true}));
    CHECK(report.find("## Length sweep") != std::string::npos);
    CHECK(report.find("| variant | τ (positions), 95 % over seeds | e₀, 95 % over seeds |") != std::string::npos);
    CHECK(report.find("gru and gru_attention: too few seeds to tell") != std::string::npos);   // one seed
    for (const char* run : {"gru-len4-seed1", "gru-len8-seed1", "gru_attention-len4-seed1", "gru_attention-len8-seed1"})
        CHECK(std::filesystem::exists(std::filesystem::path(root / "out/runs") / run / "config.resolved.json"));
    // Each sweep run's data are capped at its length: min_length 3 stays, max_length becomes L.
    const auto run_config = nlohmann::json::parse(read_file(root / "out/runs/gru-len4-seed1/config.resolved.json"));
    CHECK(run_config["data"]["max_length"] == 4);
    const auto json = nlohmann::json::parse(read_file(root / "out/report.json"));
    REQUIRE(json["length_sweep"]["points"].size() == 4);
    for (const auto& point : json["length_sweep"]["points"]) {
        INFO(point.dump());
        CHECK(point["input_length"].get<double>() >= 3);
        CHECK(point["input_length"].get<double>() <= point["max_length"].get<double>());
        CHECK(point["target_tokens"].get<int64_t>() > 0);
        CHECK(point["vocabulary"].get<int64_t>() > 0);
    }
    REQUIRE(json["length_sweep"]["fits"].size() == 2);   // every variant is fitted
    for (const auto& fit : json["length_sweep"]["fits"]) {
        INFO(fit.dump());
        CHECK(fit["points"] == 2);
        CHECK(fit["per_seed"].size() == 1);
        CHECK(fit["per_seed"][0]["seed"] == 1);
        CHECK(fit["tau_interval"].is_null());   // one seed has no interval
        CHECK(fit["zero_error_points"].get<int64_t>() >= 0);
    }
    CHECK(json["length_sweep"]["contrasts"].size() == 1);
    const std::string plot = read_file(root / "out/plots/length_sweep.svg");
    CHECK(test::xml_problem(plot) == "");
    // each variant's accuracy and its fitted curve, and the chance level
    CHECK(test::count_occurrences(plot, "class=\"series\"") == 5);
    CHECK(plot.find("data-name=\"gru_attention fit\"") != std::string::npos);
    CHECK(plot.find("data-name=\"chance (1 / vocabulary)\"") != std::string::npos);
}

TEST_CASE("a length sweep needs two or more increasing lengths", "[unit]") {
    test::TempDir root;
    const std::string path = root / "sweep.json";
    auto config = nlohmann::json::parse(test::tiny_comparison());
    config["length_sweep"] = {{"max_lengths", {8}}};
    test::write_text(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("length_sweep.max_lengths: expected at least two lengths"));
    config["length_sweep"] = {{"max_lengths", {8, 4}}};
    test::write_text(path, config.dump());
    REQUIRE_THROWS_WITH(load_compare_config(path, {}), Catch::StartsWith("length_sweep.max_lengths: expected increasing lengths, got 4 after 8"));
    config["length_sweep"] = {{"max_lengths", {4, 8}}, {"min_lengths", {1}}};
    test::write_text(path, config.dump());
    REQUIRE_THROWS_AS(load_compare_config(path, {}), ConfigError);
}

TEST_CASE("the shipped comparisons load, each with at least 3 seeds, enough for an interval", "[unit]") {
    const std::string configs = std::string(TF_SOURCE_DIR) + "/configs/";
    for (const char* name : {"compare_poetry", "compare_recall", "compare_length_sweep"}) {
        INFO(name);
        CHECK_NOTHROW(load_compare_config(configs + name + ".json", {}));
    }
    for (const char* name : {"compare_poetry", "compare_recall", "compare_length_sweep"}) {
        INFO(name);   // fewer seeds and the report warns that its verdicts say little
        CHECK(load_compare_config(configs + name + ".json", {}).seeds.size() >= 3);
    }
    CHECK(load_compare_config(configs + "compare_length_sweep.json", {}).length_sweep.has_value());
}

TEST_CASE("config check takes a comparison config and checks every variant's run config", "[integration]") {
    // From the checkout, where the poetry comparison's relative data.path is read from, as compare would.
    for (const char* name : {"compare_poetry", "compare_recall", "compare_length_sweep"}) {
        const test::CliResult checked = test::run_cli_in(TF_SOURCE_DIR, {"config", "check", std::string("configs/") + name + ".json"});
        INFO(name << ": " << checked.err);
        CHECK(checked.exit_code == 0);
        CHECK_THAT(checked.out, Catch::Contains(std::string(name) + ".json: ok"));
    }
    test::TempDir root;
    const std::string path = root / "bad.json";
    nlohmann::json bad = nlohmann::json::parse(test::tiny_comparison());
    bad["variants"][2]["model"]["heads"] = 3;  // d_model 8 is not divisible by 3 heads
    test::write_text(path, bad.dump());
    const test::CliResult refused = test::run_cli({"config", "check", path});
    INFO(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("variant \"transformer\": model.d_model"));
    bad = nlohmann::json::parse(test::tiny_comparison());
    bad["predictions"]["baseline"] = "gruu";
    test::write_text(path, bad.dump());
    CHECK_THAT(test::run_cli({"config", "check", path}).err, Catch::Contains("predictions.baseline: expected one of"));
    // print shows the comparison with its defaults filled in.
    const test::CliResult printed = test::run_cli({"config", "print", test::kTinyComparisonPath});
    REQUIRE(printed.exit_code == 0);
    CHECK(nlohmann::json::parse(printed.out)["analysis"]["probes"] == 2);
    CHECK(nlohmann::json::parse(printed.out)["kernels"] == "fast");
}

TEST_CASE("compare --dry-run lists every run with an estimated time and writes nothing", "[integration]") {
    test::TempDir dir;
    const test::CliResult planned =
        test::run_cli({"compare", tf::test::kTinyComparisonPath, "--dry-run", "--run-dir", dir / "comparison"});
    INFO(planned.err);
    REQUIRE(planned.exit_code == 0);
    // 3 variants × 2 seeds, each a line naming its variant, seed, steps and directory.
    for (const std::string variant : {"gru ", "gru_attention ", "transformer "})
        for (const std::string seed : {"seed 1 ", "seed 2 "}) {
            INFO(variant << seed);
            CHECK(planned.out.find(variant) != std::string::npos);
            CHECK(planned.out.find(seed) != std::string::npos);
        }
    CHECK(test::count_occurrences(planned.out, "      6 steps") == 6);
    CHECK(planned.out.find("Budget: equal steps\n6 runs, about ") != std::string::npos);
    CHECK(planned.out.find(dir / "comparison/runs/gru_attention-seed2") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "comparison"));
    const test::CliResult bad = test::run_cli({"compare", tf::test::kTinyComparisonPath, "--dry-run", "--set", "seeds=[]"});
    CHECK(bad.exit_code == 2);
}
