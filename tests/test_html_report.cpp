// report.html beside report.md: the same headings, paragraphs, tables and plots as one offline
// page — escaped text, `code` marked up, sortable tables, the SVG inline — and the attention
// viewer, whose data must be the maps analyze writes as CSV.
#include "catch.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/reports/attention_viewer.h"
#include "analysis/reports/html_page.h"
#include "analysis/reports/report.h"
#include "autograd/error.h"
#include "run_helpers.h"
#include "util/files.h"
#include "xml_check.h"
#include "source_paths.h"

using namespace tf;

TEST_CASE("report text becomes escaped HTML with code and bold marked up", "[unit]") {
    CHECK(html::escape("a < b & \"c\" > d") == "a &lt; b &amp; &quot;c&quot; &gt; d");
    CHECK(html::inline_markup("run `tapeformer <x>` **now** & then") ==
          "run <code>tapeformer &lt;x&gt;</code> <strong>now</strong> &amp; then");
    CHECK(html::inline_markup("an `unclosed span") == "an <code>unclosed span</code>");
}

TEST_CASE("a report writes report.html with its headings, sortable tables and inline plots, well-formed and offline",
          "[unit]") {
    test::TempDir dir;
    Report report(dir.path());
    report.heading(1, "Comparison: <tiny>");
    report.paragraph("Command: `tapeformer compare tiny.json`.");
    report.table({"variant", "loss"}, {{"gru", "1.5 ± 0.1"}, {"transformer", "0.9"}});
    report.plot("loss", svg::LinePlot{"Training loss", "step", "loss", {{"gru", {1, 2}, {2.0, 1.5}}}, false});
    CHECK(report.write() == dir / "report.md");
    const std::string page = read_file(dir / "report.html");
    CHECK(test::xml_problem(page) == "");
    CHECK(page.find("<title>Comparison: &lt;tiny&gt;</title>") != std::string::npos);
    CHECK(page.find("<h1>Comparison: &lt;tiny&gt;</h1>") != std::string::npos);
    CHECK(page.find("<code>tapeformer compare tiny.json</code>") != std::string::npos);
    CHECK(page.find("<table class=\"sortable\">") != std::string::npos);
    CHECK(test::count_occurrences(page, "<td>") == 4);
    CHECK(page.find("<svg xmlns") != std::string::npos);   // the plot inline, not linked
    CHECK(page.find("href=\"plots/loss.csv\"") != std::string::npos);
    CHECK(page.find("window.onerror") != std::string::npos);
    // Nothing fetched: no src= and no link to another site (the one URL is the SVG namespace).
    CHECK(page.find(" src=") == std::string::npos);
    CHECK(test::count_occurrences(page, "http") == test::count_occurrences(page, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST_CASE("the viewer's markup escapes tokens such as <bos> and its JSON gives them back, per example", "[unit]") {
    const ViewerMap first{"layer <0> & co", ViewerMapKind::causal_self_attention, {"<bos>", "a"}, {"&", "b"}, {{0.25, 0.75}, {1.0, 0.0}}};
    const ViewerMap second{"layer <0> & co", ViewerMapKind::causal_self_attention, {"<bos>"}, {"c"}, {{1.0}}};
    const std::string markup = attention_viewer_html({{"a & b", {first}}, {"c", {second}}});
    CHECK(test::xml_problem(markup) == "");
    CHECK(markup.find("<bos>") == std::string::npos);
    CHECK(markup.find("<select class=\"viewer-example\"><option value=\"0\">a &amp; b</option><option value=\"1\">c</option>") !=
          std::string::npos);
    CHECK(markup.find("<select class=\"viewer-choice\"><option value=\"0\" data-caption=\"" +
                      html::escape(viewer_caption(ViewerMapKind::causal_self_attention)) +
                      "\" selected=\"selected\">layer &lt;0&gt; &amp; co</option></select>") != std::string::npos);
    const std::size_t start = markup.find("class=\"attention-data\">") + std::string("class=\"attention-data\">").size();
    const nlohmann::json data = nlohmann::json::parse(markup.substr(start, markup.find("</script>", start) - start));
    REQUIRE(data.size() == 2);
    CHECK(data[0]["label"] == "a & b");
    CHECK(data[0]["maps"][0]["queries"][0] == "<bos>");
    CHECK(data[0]["maps"][0]["keys"][0] == "&");
    CHECK(data[0]["maps"][0]["weights"][0][1] == 0.75);
    CHECK(data[1]["maps"][0]["keys"] == nlohmann::json::array({"c"}));
    CHECK(attention_viewer_html({}).find("no attention") != std::string::npos);
    CHECK(attention_viewer_html({{"a", {}}}).find("no attention") != std::string::npos);
    // Every example has the same maps: a mismatch is a bug of the caller's, not a page with holes.
    CHECK_THROWS_AS(attention_viewer_html({{"a", {first}}, {"b", {first, second}}}), ValueError);
    // Weights travel to 6 significant digits.
    const std::string rounded = attention_viewer_html({{"a", {{"m", ViewerMapKind::cross_attention, {"q"}, {"k"}, {{0.123456789}}}}}});
    CHECK(rounded.find("[[0.123457]]") != std::string::npos);
}

TEST_CASE("analyze's report.html views every attention map and the kernel of 3 examples, the report's equal to its CSV",
          "[integration]") {
    test::TempDir dir;
    const nlohmann::json config = {
        {"name", "tiny"}, {"seed", 1},
        {"model", {{"type", "transformer"}, {"d_model", 8}, {"heads", 2}, {"encoder_layers", 1}, {"decoder_layers", 1},
                   {"ffn_hidden", 16}, {"dropout", 0.0}, {"max_length", 16}}},
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 6}, {"min_length", 3}, {"max_length", 6},
                  {"train_size", 64}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        {"optimizer", {{"name", "adam"}, {"lr", 0.01}}},
        {"train", {{"max_steps", 2}, {"log_every", 1}, {"eval_every", 0}, {"checkpoint_every", 2}}}};
    test::write_text(dir / "tiny.json", config.dump());
    REQUIRE(test::run_cli({"train", dir / "tiny.json", "--run-dir", dir / "run", "--quiet"}).exit_code == 0);
    REQUIRE(test::run_cli({"analyze", "--run", dir / "run", "--out", dir / "analysis"}).exit_code == 0);
    const std::string page = read_file(dir / "analysis/report.html");
    CHECK(test::xml_problem(page) == "");
    const std::size_t start = page.find("class=\"attention-data\">") + std::string("class=\"attention-data\">").size();
    const nlohmann::json examples = nlohmann::json::parse(page.substr(start, page.find("</script>", start) - start));
    const nlohmann::json analysis = nlohmann::json::parse(read_file(dir / "analysis/analysis.json"));
    // The first 3 test examples (the default), each with the same maps on its own tokens.
    REQUIRE(examples.size() == 3);
    const nlohmann::json& maps = examples[0]["maps"];
    // Self-attention in the encoder and decoder and cross-attention, 2 heads each, and the kernel.
    REQUIRE(analysis["attention"].size() == 3);
    REQUIRE(maps.size() == 3 * 2 + 1);
    CHECK(test::count_occurrences(page, "<option value=") == maps.size() + examples.size());
    for (const nlohmann::json& example : examples) {
        REQUIRE(example["maps"].size() == maps.size());
        for (std::size_t m = 0; m < maps.size(); ++m) {
            CHECK(example["maps"][m]["label"] == maps[m]["label"]);
            CHECK(example["maps"][m]["weights"].size() == example["maps"][m]["queries"].size());
        }
    }
    CHECK(examples[0]["label"] != examples[1]["label"]);
    for (std::size_t m = 0; m < 3; ++m)
        for (int head = 0; head < 2; ++head) {
            const nlohmann::json& view = maps[2 * m + static_cast<std::size_t>(head)];
            std::string file = analysis["attention"][m]["name"].get<std::string>() + "_head" + std::to_string(head);
            std::replace(file.begin(), file.end(), '.', '_');
            INFO(view["label"] << " against plots/" << file << ".csv");
            std::istringstream csv(read_file(dir / ("analysis/plots/" + file + ".csv")));
            std::string line;
            std::getline(csv, line);   // row,column,weight
            int cells = 0;
            while (std::getline(csv, line)) {
                std::size_t row = 0, column = 0;
                double value = 0;
                REQUIRE(std::sscanf(line.c_str(), "%zu,%zu,%lf", &row, &column, &value) == 3);
                CHECK(view["weights"][row][column].get<double>() == Approx(value).epsilon(5e-6));   // 6 digits
                ++cells;
            }
            CHECK(cells == static_cast<int>(view["queries"].size() * view["keys"].size()));
        }
    CHECK(maps.back()["label"].get<std::string>().rfind("dependency kernel", 0) == 0);
    // It opens on the first attention map, the encoder's self-attention, captioned as one.
    CHECK(page.find("selected=\"selected\">encoder.layers.0.self_attn, head 0 (self)</option>") != std::string::npos);
    CHECK(page.find("<p class=\"viewer-caption\">" + html::escape(viewer_caption(ViewerMapKind::encoder_self_attention)) + "</p>") !=
          std::string::npos);
}

TEST_CASE("the pages of the shipped configs stay under 2 MB: the tape of each, the poetry comparison, and analyze of "
          "the model with the most attention maps", "[integration]") {
    test::TempDir dir;
    constexpr std::size_t kLargestPage = 2u << 20;
    const std::string source = TF_SOURCE_DIR;
    // The shipped configs name their data relative to the repository, where a user runs them.
    const auto command = [&](std::vector<std::string> args, const std::string& config) {
        const nlohmann::json json = nlohmann::json::parse(read_file(config));
        if (json.contains("data") && json["data"].contains("path"))
            args.insert(args.end(), {"--set", "data.path=" + source + "/" + json["data"]["path"].get<std::string>()});
        return test::run_cli(args);
    };
    for (const auto& entry : std::filesystem::directory_iterator(source + "/configs")) {
        const std::string name = entry.path().stem().string(), config = entry.path().string();
        if (entry.path().extension() != ".json" || name.rfind("compare_", 0) == 0) continue;
        INFO(name);
        REQUIRE(command({"tape", config, "--out", dir / ("tape-" + name)}, config).exit_code == 0);
        CHECK(std::filesystem::file_size(dir / ("tape-" + name + "/tape.html")) < kLargestPage);
    }
    // The demo's comparison, one seed, briefly: the page's size does not depend on training.
    const std::string poetry = source + "/configs/compare_poetry.json";
    REQUIRE(command({"compare", poetry, "--set", "seeds=[1]", "--set", "train.max_steps=20", "--run-dir", dir / "compare",
                     "--quiet"}, poetry).exit_code == 0);
    CHECK(std::filesystem::file_size(dir / "compare/report.html") < kLargestPage);
    // poetry_transformer: 2 encoder and 2 decoder layers of 4 heads, 24 maps of some 40 × 40.
    const std::string transformer = source + "/configs/poetry_transformer.json";
    REQUIRE(command({"train", transformer, "--set", "train.max_steps=1", "--run-dir", dir / "run", "--quiet"}, transformer)
                .exit_code == 0);
    REQUIRE(test::run_cli({"analyze", "--run", dir / "run", "--out", dir / "analysis"}).exit_code == 0);
    const std::string page = read_file(dir / "analysis/report.html");
    CHECK(test::count_occurrences(page, "<option value=") == 24 + 1 + 3);   // the maps, the kernel and 3 examples
    CHECK(page.size() < kLargestPage);
}
