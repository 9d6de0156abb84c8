// `collect`: runs of one config gathered into one report (both in the table, both curves drawn, a
// well-formed page), refusals that name what differs (a config key, the data, the kind, the
// folders), --allow, and the provenance every run records — its config hash recomputed, an older
// run without one shown as "unknown".
#include "catch.h"

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "analysis/studies/compare.h"
#include "build_commit.h"
#include "config/json_file.h"
#include "run_helpers.h"
#include "tiny_comparison.h"
#include "datasets/data_fingerprint.h"
#include "train/provenance.h"
#include "train/run_loader.h"
#include "util/files.h"
#include "util/fnv1a.h"
#include "xml_check.h"

using namespace tf;
using Json = nlohmann::json;
using tf::test::require_refused;

namespace {

// The tiny transformer's 3-step run trained from dir/<name>.json into dir/<name>, with overrides.
std::string train_tiny(const test::TempDir& dir, const std::string& name, const std::vector<std::string>& sets = {}) {
    test::write_text(dir / (name + ".json"), test::tiny_transformer_config(3).dump());
    std::vector<std::string> args = {"train", dir / (name + ".json"), "--run-dir", dir / name, "--quiet"};
    for (const std::string& set : sets) args.insert(args.end(), {"--set", set});
    const test::CliResult trained = test::run_cli(args);
    INFO(trained.err);
    REQUIRE(trained.exit_code == 0);
    return dir / name;
}

test::CliResult collect(const std::vector<std::string>& dirs, const std::string& out, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = {"collect"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    args.insert(args.end(), {"--out", out});
    args.insert(args.end(), more.begin(), more.end());
    return test::run_cli(args);
}

}  // namespace

TEST_CASE("FNV-1a 64 gives the published values, and a config's hash is that of its canonical text", "[unit]") {
    // Test vectors of the FNV reference (Fowler, Noll, Vo): "" is the offset basis itself.
    Fnv1a64 empty, a, foobar;
    a.add_bytes("a"), foobar.add_bytes("foobar");
    CHECK(empty.hex() == "cbf29ce484222325");
    CHECK(a.hex() == "af63dc4c8601ec8c");
    CHECK(foobar.hex() == "85944171f73967e8");
    // Keys sorted and no spaces, however the file was written: {"a":{"c":null},"b":[1,2.5,"x"]}.
    const config::Json config = config::Json::parse("{ \"b\": [1, 2.5, \"x\"],\n  \"a\": {\"c\": null} }");
    CHECK(train::config_hash(config) == "42caf5a671158c0e");
    CHECK(train::config_hash(config::Json::parse(config.dump(2))) == "42caf5a671158c0e");
}

TEST_CASE("a run records its commit, machine and hashes, which recompute from its files", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    const std::string run = train_tiny(dir, "run");
    const train::Provenance recorded = train::read_provenance(run + "/provenance.json");
    CHECK(recorded.commit == TF_BUILD_COMMIT);
    CHECK(recorded.commit != "");
    CHECK(recorded.hostname != "");
    CHECK(recorded.cores == static_cast<int64_t>(std::thread::hardware_concurrency()));
    CHECK(recorded.config_hash == train::config_hash(config::load_json_file(run + "/config.resolved.json")));
    CHECK(recorded.data_hash == train::data_fingerprint(train::load_run(run, "best").dataset));
    CHECK(recorded.data_hash.size() == 16);
}

TEST_CASE("collect puts runs of one config in one table, draws both curves and writes a well-formed page", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    const std::string alice = train_tiny(dir, "alice"), bob = train_tiny(dir, "bob", {"name=bobs_run"});
    const test::CliResult collected = collect({alice, bob + "/"}, dir / "graded");
    INFO(collected.err);
    REQUIRE(collected.exit_code == 0);

    const std::string report = read_file(dir / "graded/report.md");
    CHECK(report.find("| " + alice + " | 3 |") != std::string::npos);
    CHECK(report.find("| " + bob + " | 3 |") != std::string::npos);
    CHECK(report.find("What the submissions were allowed to vary") != std::string::npos);
    const std::string curves = read_file(dir / "graded/plots/loss.csv");
    CHECK(curves.find(alice + ",1,") != std::string::npos);
    CHECK(curves.find(bob + ",3,") != std::string::npos);
    const std::string svg = read_file(dir / "graded/plots/loss.svg");
    CHECK(test::xml_problem(svg) == "");
    CHECK(test::count_occurrences(svg, "<polyline") == 2);
    const std::string page = read_file(dir / "graded/report.html");
    CHECK(test::xml_problem(page) == "");
    CHECK(page.find("<td>" + alice + "</td>") != std::string::npos);

    // report.json: the final train loss is the last one metrics.jsonl logged; the provenance is the run's.
    const Json json = Json::parse(read_file(dir / "graded/report.json"));
    REQUIRE(json["submissions"].size() == 2);
    // The run names differ, which a submission may: what differs lists each one's.
    REQUIRE(json["differences"].size() == 1);
    CHECK(json["differences"][0] == Json{{"key", "name"}, {"values", {"\"tiny\"", "\"bobs_run\""}}});
    const Json& first = json["submissions"][0]["runs"][0];
    CHECK(first["final_train_loss"].get<double>() == test::logged_losses(alice + "/metrics.jsonl").back().second);
    CHECK(first["valid_token_accuracy"].is_number());
    CHECK(first["provenance"]["commit"] == TF_BUILD_COMMIT);
    CHECK(first["provenance"]["config_edited"] == false);

    // Collected again into its own folder: allowed; into a folder of someone else's files: refused.
    CHECK(collect({alice, bob}, dir / "graded").exit_code == 0);
    std::filesystem::create_directories(dir / "notes");
    test::write_text(dir / "notes/grades.txt", "keep me");
    require_refused(collect({alice, bob}, dir / "notes"), {"grades.txt"});
    CHECK(read_file(dir / "notes/grades.txt") == "keep me");
}

TEST_CASE("collect refuses configs that differ, naming the key and the submissions, unless --allow permits the key", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    const std::string alice = train_tiny(dir, "alice");
    const std::string faster = train_tiny(dir, "faster", {"optimizer.lr=0.02"});
    const std::string seeded = train_tiny(dir, "seeded", {"seed=2"});
    require_refused(collect({alice, faster}, dir / "out"), {"optimizer.lr", alice, faster, "0.02"});
    CHECK_FALSE(std::filesystem::exists(dir / "out"));   // nothing written
    require_refused(collect({alice, seeded}, dir / "out"), {"seed (", "--allow"});

    const test::CliResult allowed = collect({alice, seeded}, dir / "out", {"--allow", "seed"});
    INFO(allowed.err);
    REQUIRE(allowed.exit_code == 0);
    const Json json = Json::parse(read_file(dir / "out/report.json"));
    REQUIRE(json["differences"].size() == 1);
    CHECK(json["differences"][0]["key"] == "seed");
    CHECK(json["differences"][0]["values"] == Json::array({"1", "2"}));
    // --allow seed lets the seed alone differ: the learning rate still may not.
    require_refused(collect({alice, faster}, dir / "out2", {"--allow", "seed"}), {"optimizer.lr"});
    CHECK(collect({alice, faster}, dir / "out2", {"--allow", "optimizer"}).exit_code == 0);
}

TEST_CASE("collect refuses runs of one config that read different data", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    Json config = test::tiny_transformer_config(2);
    config["data"] = {{"source", "text"}, {"path", "lines.txt"}, {"max_length", 12}, {"batch_size", 8}};
    for (const std::string student : {"alice", "bob"}) {
        std::filesystem::create_directories(dir / student);
        std::string lines;   // the same config, relative data.path, and each student's own file there
        for (int i = 0; i < 40; ++i) lines += i % 2 ? "a cab\n" : (student == "alice" ? "bad cab\n" : "dab bac\n");
        test::write_text(dir / (student + "/lines.txt"), lines);
        test::write_text(dir / (student + "/config.json"), config.dump());
        REQUIRE(test::run_cli_in(dir / student, {"train", "config.json", "--run-dir", "run", "--quiet"}).exit_code == 0);
    }
    require_refused(collect({dir / "alice/run", dir / "bob/run"}, dir / "out"), {"data", dir / "alice/run", dir / "bob/run"});
    // A key under `data` allowed: the data may differ too, and the report says they were not compared.
    REQUIRE(collect({dir / "alice/run", dir / "bob/run"}, dir / "out", {"--allow", "data.path"}).exit_code == 0);
    CHECK(read_file(dir / "out/report.md").find("their data were allowed to differ and were not compared") != std::string::npos);
}

TEST_CASE("a run made before provenance.json is collected as unknown, and an edited config is marked", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    const std::string alice = train_tiny(dir, "alice");
    std::filesystem::copy(alice, dir / "old", std::filesystem::copy_options::recursive);
    std::filesystem::remove(dir / "old/provenance.json");
    std::filesystem::copy(alice, dir / "edited", std::filesystem::copy_options::recursive);
    Json edited = config::load_json_file(dir / "edited/config.resolved.json");
    edited["name"] = "renamed";
    test::write_text(dir / "edited/config.resolved.json", edited.dump(2));

    const test::CliResult collected = collect({alice, dir / "old", dir / "edited"}, dir / "out");
    INFO(collected.err);
    REQUIRE(collected.exit_code == 0);
    const Json json = Json::parse(read_file(dir / "out/report.json"));
    const Json& old = json["submissions"][1]["runs"][0]["provenance"];
    for (const char* key : {"commit", "hostname", "cpu", "config_fnv1a64", "data_fnv1a64"}) CHECK(old[key] == "unknown");
    CHECK(json["submissions"][2]["runs"][0]["provenance"]["config_edited"] == true);
    const std::string report = read_file(dir / "out/report.md");
    CHECK(report.find("| unknown | unknown | unknown | unknown | unknown | unknown |") != std::string::npos);
    CHECK(report.find("(config.resolved.json edited since)") != std::string::npos);
    CHECK(report.find("(1 did not: made before runs recorded provenance.json)") != std::string::npos);
}

TEST_CASE("collect names a folder that is neither a run nor a comparison, and refuses an --out inside a submission", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    const std::string alice = train_tiny(dir, "alice");
    std::filesystem::create_directories(dir / "empty");
    require_refused(collect({alice, dir / "empty"}, dir / "out"), {dir / "empty", "neither a run"});
    require_refused(collect({alice, dir / "missing"}, dir / "out"), {dir / "missing", "no such directory"});
    require_refused(collect({alice}, alice + "/report"), {"inside the submission", alice});
    require_refused(collect({alice}, alice), {"inside the submission"});
    require_refused(collect({alice, alice + "/"}, dir / "out"), {"named twice"});
    require_refused(test::run_cli({"collect", "--out", dir / "out"}), {"submissions"});   // none given
    CHECK_FALSE(std::filesystem::exists(alice + "/report"));
}

TEST_CASE("collect gathers comparisons with their test metrics, and will not mix them with runs", "[integration]") {
    const test::TempDir dir("tapeformer-collect");
    CompareOptions options{dir / "alice", "tapeformer compare tiny.json", true};
    run_compare(load_compare_config(test::kTinyComparisonPath, {"seeds=[1]"}), options);
    std::filesystem::copy(dir / "alice", dir / "bob", std::filesystem::copy_options::recursive);

    const test::CliResult collected = collect({dir / "alice", dir / "bob"}, dir / "out");
    INFO(collected.err);
    REQUIRE(collected.exit_code == 0);
    const Json json = Json::parse(read_file(dir / "out/report.json"));
    CHECK(json["kind"] == "comparison");
    REQUIRE(json["submissions"][1]["runs"].size() == 3);   // three variants, one seed
    const Json compared = Json::parse(read_file(dir / "alice/report.json"));
    CHECK(json["submissions"][1]["runs"][2]["test_token_accuracy"] == compared["variants"][2]["runs"][0]["test_token_accuracy"]);
    const std::string report = read_file(dir / "out/report.md");
    CHECK(report.find(dir / "bob" + ": gru_attention, seed 1") != std::string::npos);
    CHECK(report.find("test token accuracy") != std::string::npos);

    // A variant changed in one submission is named by the variant's name.
    Json changed = config::load_json_file(dir / "bob/compare.resolved.json");
    changed["variants"][0]["model"]["hidden_size"] = 16;
    test::write_text(dir / "bob/compare.resolved.json", changed.dump(2));
    require_refused(collect({dir / "alice", dir / "bob"}, dir / "out"), {"variants.gru.model.hidden_size"});

    const std::string run = train_tiny(dir, "run");
    require_refused(collect({dir / "alice", run}, dir / "out"), {"one kind", "a comparison", "a run"});
}
