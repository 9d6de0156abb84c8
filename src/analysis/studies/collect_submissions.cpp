// Reading the submissions `collect` gathers, and checking that they are submissions of one assignment.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analysis/studies/collect.h"
#include "analysis/studies/metrics_log.h"
#include "config/json_diff.h"
#include "config/json_file.h"
#include "train/checkpoint.h"
#include "train/run_dir.h"
#include "util/files.h"

namespace tf {

namespace {

constexpr const char* kCompareConfigFile = "compare.resolved.json";   // what `compare` writes first

double last_or_nan(const std::vector<double>& values) { return values.empty() ? NAN : values.back(); }

// A trained run: its config, provenance, progress at the latest checkpoint and its logged curves.
CollectedRun read_run(const std::string& submission, const std::string& label, const std::string& dir) {
    const train::RunDirectory run(dir);
    if (!file_exists(run.config())) throw ConfigError(shown_path(dir) + ": not a run (no config.resolved.json)");
    if (!run.has_run())
        throw ConfigError(shown_path(dir) + ": a run that never saved a checkpoint (its training stopped before the first): nothing to collect");
    CollectedRun collected;
    collected.submission = submission, collected.label = label, collected.run_dir = dir;
    collected.provenance = train::read_provenance(run.provenance());
    collected.config_edited = collected.provenance.config_hash != train::kUnknown &&
                              collected.provenance.config_hash != train::config_hash(config::load_json_file(run.config()));
    const train::TrainingProgress progress = train::read_progress(run.latest());
    collected.steps = progress.step;
    collected.train_seconds = progress.elapsed_seconds;
    collected.best_valid_loss = progress.best_valid_loss;
    read_curve(run.metrics(), "loss", collected.loss_steps, collected.losses);
    read_curve(run.metrics(), "valid_token_accuracy", collected.valid_steps, collected.valid_accuracies);
    std::vector<double> steps, sequence_accuracies;
    read_curve(run.metrics(), "valid_sequence_accuracy", steps, sequence_accuracies);
    collected.final_train_loss = last_or_nan(collected.losses);
    collected.valid_token_accuracy = last_or_nan(collected.valid_accuracies);
    collected.valid_sequence_accuracy = last_or_nan(sequence_accuracies);
    return collected;
}

// A comparison's "variants" list as an object keyed by variant name, so that json_changes names a
// difference inside one variant by its path ("variants.gru.model.hidden_size"). A list that is not
// one of uniquely named variants is left as it is.
config::Json variants_by_name(config::Json compare_config) {
    if (!compare_config.contains("variants") || !compare_config["variants"].is_array()) return compare_config;
    config::Json by_name = config::Json::object();
    for (const config::Json& variant : compare_config["variants"]) {
        if (!variant.is_object() || !variant.contains("name") || !variant["name"].is_string()) return compare_config;
        const std::string name = variant["name"].get<std::string>();
        if (by_name.contains(name)) return compare_config;
        by_name[name] = variant;
        by_name[name].erase("name");
    }
    compare_config["variants"] = by_name;
    return compare_config;
}

double number_or_nan(const config::Json& object, const std::string& key) {
    return object.contains(key) && object[key].is_number() ? object[key].get<double>() : NAN;
}

// A finished comparison: report.json lists its runs (runs/<dir's last component>) and their test metrics.
Submission read_comparison(const std::string& dir) {
    const std::string report_path = dir + "/report.json";
    if (!file_exists(report_path))
        throw ConfigError(dir + ": a comparison without report.json: it has not finished (run its `tapeformer compare` again)");
    const config::Json report = config::load_json_file(report_path);
    if (!report.is_object() || !report.contains("variants") || !report["variants"].is_array())
        throw ConfigError(report_path + ": expected a comparison's report, with a \"variants\" list");
    Submission submission{dir, SubmissionKind::comparison, variants_by_name(config::load_json_file(dir + "/" + kCompareConfigFile)), {}};
    for (const config::Json& variant : report["variants"]) {
        if (!variant.is_object() || !variant.contains("name") || !variant["name"].is_string() || !variant.contains("runs") ||
            !variant["runs"].is_array())
            throw ConfigError(report_path + ": a variant without a \"name\" and a \"runs\" list");
        for (const config::Json& run : variant["runs"]) {
            if (!run.is_object() || !run.contains("dir") || !run["dir"].is_string() || !run.contains("seed") ||
                !run["seed"].is_number_integer())
                throw ConfigError(report_path + ": a run of variant " + config::describe(variant["name"]) +
                                  " without a \"dir\" and a \"seed\"");
            const std::string run_dir = dir + "/runs/" + std::filesystem::path(run["dir"].get<std::string>()).filename().string();
            const std::string label = dir + ": " + variant["name"].get<std::string>() + ", seed " + std::to_string(run["seed"].get<int64_t>());
            CollectedRun collected = read_run(dir, label, run_dir);
            collected.test_loss = number_or_nan(run, "test_loss");
            collected.test_token_accuracy = number_or_nan(run, "test_token_accuracy");
            collected.test_sequence_accuracy = number_or_nan(run, "test_sequence_accuracy");
            submission.runs.push_back(std::move(collected));
        }
    }
    if (submission.runs.empty()) throw ConfigError(report_path + ": the comparison lists no runs");
    return submission;
}

const char* kind_name(SubmissionKind kind) { return kind == SubmissionKind::run ? "a run" : "a comparison"; }

// "a.b (A: 1, B: 2), c (A: absent, B: 3)": the first few changes, and how many more.
std::string listed_changes(const std::vector<config::JsonChange>& changes, const std::string& a, const std::string& b) {
    constexpr std::size_t kShown = 3;
    std::string text;
    for (std::size_t i = 0; i < changes.size() && i < kShown; ++i)
        text += (i ? ", " : "") + changes[i].key + " (" + a + ": " + changes[i].was + ", " + b + ": " + changes[i].is + ")";
    if (changes.size() > kShown) text += " and " + std::to_string(changes.size() - kShown) + " more";
    return text;
}

std::string always_allowed_text() {
    std::string text;
    for (const std::string& key : kKeysAlwaysAllowed) text += (text.empty() ? "" : ", ") + key;
    return text;
}

}  // namespace

Submission read_submission(const std::string& dir) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error))
        throw ConfigError(shown_path(dir) + ": no such directory (collect reads run directories and comparison folders)");
    if (file_exists(dir + "/" + kCompareConfigFile)) return read_comparison(dir);
    const train::RunDirectory run(dir);
    if (!file_exists(run.config()))
        throw ConfigError(shown_path(dir) + ": neither a run (no config.resolved.json) nor a comparison (no " + kCompareConfigFile + ")");
    Submission submission{dir, SubmissionKind::run, config::load_json_file(run.config()), {}};
    submission.runs.push_back(read_run(dir, dir, dir));
    return submission;
}

bool key_allowed(const std::string& key, const std::vector<std::string>& allowed) {
    for (const std::string& permitted : allowed)
        if (key == permitted || key.starts_with(permitted + ".")) return true;
    return false;
}

bool data_may_differ(const std::vector<std::string>& allowed) {
    return std::any_of(allowed.begin(), allowed.end(), [](const std::string& key) { return key == "data" || key.starts_with("data."); });
}

void require_same_assignment(const std::vector<Submission>& submissions, const std::vector<std::string>& allowed) {
    if (submissions.empty()) throw ConfigError("collect: no submissions given (name at least one run or comparison directory)");
    const Submission& first = submissions.front();
    for (const Submission& other : submissions) {
        if (other.kind != first.kind)
            throw ConfigError("collect gathers submissions of one kind: " + first.dir + " is " + kind_name(first.kind) + ", " +
                              other.dir + " is " + kind_name(other.kind));
        std::vector<config::JsonChange> changes;
        for (const config::JsonChange& change : config::json_changes(&first.config, &other.config))
            if (!key_allowed(change.key, allowed)) changes.push_back(change);
        if (!changes.empty())
            throw ConfigError("the configs of " + first.dir + " and " + other.dir + " differ at " +
                              listed_changes(changes, first.dir, other.dir) +
                              ": collect ranks submissions of one assignment config (keys that may differ: " +
                              always_allowed_text() + "; --allow KEY lets another differ)");
    }
    // The data: every run that recorded its data hash against the first that did.
    if (data_may_differ(allowed)) return;
    const CollectedRun* reference = nullptr;
    for (const Submission& submission : submissions)
        for (const CollectedRun& run : submission.runs) {
            if (run.provenance.data_hash == train::kUnknown) continue;
            if (!reference) reference = &run;
            else if (run.provenance.data_hash != reference->provenance.data_hash)
                throw ConfigError("the data of " + reference->label + " and " + run.label + " differ (data hashes " +
                                  reference->provenance.data_hash + " and " + run.provenance.data_hash +
                                  ", provenance.json): the same config read other examples, splits or vocabulary — a changed "
                                  "data file? collect ranks submissions trained on the same data");
        }
}

}  // namespace tf
