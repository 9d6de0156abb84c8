// Writing the collected report: the scores table, the keys the teacher let differ, the curves side
// by side, and each run's provenance.
#include "analysis/studies/collect.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "analysis/reports/markdown_text.h"
#include "analysis/reports/report.h"
#include "config/json_bytes.h"
#include "config/json_diff.h"
#include "util/directory_lock.h"
#include "util/files.h"

namespace tf {

namespace {

// The file a collect writes first into its folder: a folder that holds it is a collect's to rewrite.
constexpr const char* kCollectMarker = "collect.json";

// `path` made absolute, its links and dot-dots resolved as far as it exists, without a trailing "/".
std::filesystem::path resolved(const std::string& path) {
    std::error_code error;
    std::filesystem::path full = std::filesystem::weakly_canonical(path, error);
    if (error) full = std::filesystem::absolute(path).lexically_normal();
    return full.has_filename() ? full : full.parent_path();
}

// Whether `inner` is `outer` or a folder under it.
bool inside(const std::filesystem::path& inner, const std::filesystem::path& outer) {
    return std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end()).first == outer.end();
}

// "runs/alice/" → "runs/alice": the name a submission goes by in the report and in messages.
std::string without_trailing_slashes(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir;
}

// Nothing is read or written before the folders are known to be sound: --out neither a
// submission nor inside one, no submission named twice, --out new, empty or an earlier collect's.
void check_folders(const std::vector<std::string>& submissions, const std::string& out) {
    if (submissions.empty()) throw ConfigError("collect: no submissions given (name at least one run or comparison directory)");
    const std::filesystem::path out_path = resolved(out);
    for (std::size_t i = 0; i < submissions.size(); ++i) {
        const std::filesystem::path submission = resolved(submissions[i]);
        if (inside(out_path, submission))
            throw ConfigError("--out " + shown_path(out) + " lies inside the submission " + shown_path(submissions[i]) +
                              ": the report goes into a folder of its own, outside every submission");
        for (std::size_t j = 0; j < i; ++j)
            if (resolved(submissions[j]) == submission)
                throw ConfigError(shown_path(submissions[j]) + " and " + shown_path(submissions[i]) +
                                  " are the same submission, named twice");
    }
    if (const std::string file = foreign_entry(out, kCollectMarker); !file.empty())
        throw ConfigError("--out " + shown_path(out) + ": the folder holds '" + file + "' and no collected report; a report " +
                          "goes into a new or empty folder, or one an earlier collect wrote (nothing there was changed)");
}

// A key that the allowed list let differ, and each submission's value there (as describe() shows it).
struct AllowedDifference {
    std::string key;
    std::vector<std::string> values;   // values[i]: submission i's
};

std::vector<AllowedDifference> allowed_differences(const std::vector<Submission>& submissions) {
    std::vector<AllowedDifference> differences;
    const Submission& first = submissions.front();
    for (std::size_t i = 1; i < submissions.size(); ++i)
        for (const config::JsonChange& change : config::json_changes(&first.config, &submissions[i].config)) {
            auto found = std::find_if(differences.begin(), differences.end(),
                                      [&](const AllowedDifference& difference) { return difference.key == change.key; });
            // A key first seen here: every submission so far had the first's value.
            if (found == differences.end())
                found = differences.insert(differences.end(), {change.key, std::vector<std::string>(submissions.size(), change.was)});
            found->values[i] = change.is;
        }
    return differences;
}

std::string keys_in_backticks(const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) text += (text.empty() ? "`" : ", `") + key + "`";
    return text;
}

std::string cores_text(const train::Provenance& provenance) {
    return provenance.cores > 0 ? std::to_string(provenance.cores) : train::kUnknown;
}

// The title, the command, and what was checked: the configs but for the allowed keys, and the data.
void write_summary(Report& report, const std::string& command, const std::vector<Submission>& submissions,
                   const std::vector<std::string>& allowed) {
    std::size_t runs = 0, without_data_hash = 0;
    for (const Submission& submission : submissions)
        for (const CollectedRun& run : submission.runs) ++runs, without_data_hash += run.provenance.data_hash == train::kUnknown;
    const std::string data = data_may_differ(allowed) ? "; their data were allowed to differ and were not compared."
                             : without_data_hash == runs ? "; no run recorded a data hash, so their data could not be compared."
                             : without_data_hash > 0 ? ", and so do the data hashes of the runs that recorded one (" +
                                                           std::to_string(without_data_hash) +
                                                           " did not: made before runs recorded provenance.json)."
                                                     : ", and so do their data hashes.";
    const bool comparisons = submissions.front().kind == SubmissionKind::comparison;
    report.heading(1, "Collected submissions");
    report.paragraph("Command: " + markdown::literal(command) + ". " + std::to_string(submissions.size()) +
                     (comparisons ? " comparisons, " + std::to_string(runs) + " runs in all" : " runs") +
                     ". Their configs agree but for the keys allowed to differ (" + keys_in_backticks(allowed) + ")" + data);
}

void write_scores(Report& report, const std::vector<Submission>& submissions) {
    const bool comparisons = submissions.front().kind == SubmissionKind::comparison;
    std::vector<std::string> header = {"submission", "steps", "train time (s)", "final train loss", "best validation loss",
                                       "validation token accuracy", "validation sequence accuracy"};
    if (comparisons) header.insert(header.end(), {"test loss", "test token accuracy", "test sequence accuracy"});
    std::vector<std::vector<std::string>> rows;
    for (const Submission& submission : submissions)
        for (const CollectedRun& run : submission.runs) {
            std::vector<std::string> row = {markdown::literal(run.label), std::to_string(run.steps), format_number(run.train_seconds, 3),
                                            format_number(run.final_train_loss), format_number(run.best_valid_loss),
                                            format_number(run.valid_token_accuracy), format_number(run.valid_sequence_accuracy)};
            if (comparisons)
                row.insert(row.end(), {format_number(run.test_loss), format_number(run.test_token_accuracy),
                                       format_number(run.test_sequence_accuracy)});
            rows.push_back(row);
        }
    report.heading(2, "Scores");
    report.paragraph(std::string("The final train loss is the last one logged (the mean over its log interval); the best "
                                 "validation loss is the lowest evaluated, the one of the run's best checkpoint; the validation "
                                 "accuracies are the last evaluation's (every run evaluates at its last step). \"–\": not measured "
                                 "(an empty validation split).") +
                     (comparisons ? " The test columns are what each comparison's report.json measured: its run's best "
                                    "checkpoint on the test split, teacher-forced."
                                  : " A run records no test metrics: `tapeformer eval --run DIR` measures them."));
    report.table(header, rows);
}

void write_differences(Report& report, const std::vector<Submission>& submissions, const std::vector<AllowedDifference>& differences) {
    if (differences.empty()) return;
    report.heading(2, "What the submissions were allowed to vary");
    std::vector<std::string> header = {"submission"};
    for (const AllowedDifference& difference : differences) header.push_back(markdown::literal(difference.key));
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < submissions.size(); ++i) {
        std::vector<std::string> row = {markdown::literal(submissions[i].dir)};
        for (const AllowedDifference& difference : differences) row.push_back(markdown::literal(difference.values[i]));
        rows.push_back(row);
    }
    report.table(header, rows);
}

void write_curves(Report& report, const std::vector<Submission>& submissions) {
    svg::LinePlot loss{"Training loss", "step", "loss", {}, true};
    svg::LinePlot accuracy{"Validation token accuracy", "step", "token accuracy", {}, false};
    for (const Submission& submission : submissions)
        for (const CollectedRun& run : submission.runs) {
            loss.series.push_back({run.label, run.loss_steps, run.losses});
            if (!run.valid_steps.empty()) accuracy.series.push_back({run.label, run.valid_steps, run.valid_accuracies});
        }
    report.heading(2, "Learning curves");
    report.plot("loss", loss);
    if (!accuracy.series.empty()) report.plot("valid_accuracy", accuracy);
}

void write_provenance_table(Report& report, const std::vector<Submission>& submissions) {
    std::vector<std::vector<std::string>> rows;
    for (const Submission& submission : submissions)
        for (const CollectedRun& run : submission.runs) {
            const train::Provenance& p = run.provenance;
            rows.push_back({markdown::literal(run.label), markdown::literal(p.commit), markdown::literal(p.hostname),
                            markdown::literal(p.cpu), cores_text(p),
                            p.config_hash + (run.config_edited ? " (config.resolved.json edited since)" : ""), p.data_hash});
        }
    report.heading(2, "Where each run was trained");
    report.paragraph("What each run wrote into its provenance.json when its training started (a resume rewrites it): the "
                     "commit of the tapeformer build (`git describe --always --dirty`; \"-dirty\": with changes not "
                     "committed), the machine, and FNV-1a 64 hashes of its resolved config and of its data (examples, splits "
                     "and vocabulary). \"unknown\": a run made before runs recorded it, or a build from a tree without git. "
                     "A config hash marked edited no longer matches the run's config.resolved.json: the file was changed "
                     "after training.");
    report.table({"submission", "commit", "machine", "CPU", "cores", "config hash", "data hash"}, rows);
}

nlohmann::json run_json(const CollectedRun& run) {
    const auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    const train::Provenance& p = run.provenance;
    nlohmann::json provenance = {{"commit", p.commit}, {"hostname", p.hostname}, {"cpu", p.cpu},
                                 {"cores", p.cores > 0 ? nlohmann::json(p.cores) : nlohmann::json(nullptr)},
                                 {"config_fnv1a64", p.config_hash}, {"data_fnv1a64", p.data_hash}, {"config_edited", run.config_edited}};
    nlohmann::json entry = {{"steps", run.steps}, {"train_seconds", finite(run.train_seconds)},
                            {"final_train_loss", finite(run.final_train_loss)}, {"best_valid_loss", finite(run.best_valid_loss)},
                            {"valid_token_accuracy", finite(run.valid_token_accuracy)},
                            {"valid_sequence_accuracy", finite(run.valid_sequence_accuracy)}, {"test_loss", finite(run.test_loss)},
                            {"test_token_accuracy", finite(run.test_token_accuracy)},
                            {"test_sequence_accuracy", finite(run.test_sequence_accuracy)}, {"provenance", provenance}};
    config::set_text_field(entry, "label", run.label);   // paths are bytes, a JSON string UTF-8 (config/json_bytes.h)
    config::set_text_field(entry, "run_dir", run.run_dir);
    return entry;
}

void write_json(const std::string& out, const std::vector<Submission>& submissions, const std::vector<std::string>& allowed,
                const std::vector<AllowedDifference>& differences) {
    nlohmann::json result = {{"kind", submissions.front().kind == SubmissionKind::run ? "run" : "comparison"},
                             {"allowed_keys", allowed}, {"submissions", nlohmann::json::array()},
                             {"differences", nlohmann::json::array()}};
    for (const Submission& submission : submissions) {
        nlohmann::json runs = nlohmann::json::array();
        for (const CollectedRun& run : submission.runs) runs.push_back(run_json(run));
        nlohmann::json entry = {{"runs", runs}};
        config::set_text_field(entry, "dir", submission.dir);
        result["submissions"].push_back(entry);
    }
    for (const AllowedDifference& difference : differences)
        result["differences"].push_back({{"key", difference.key}, {"values", difference.values}});
    write_file_atomic(out + "/report.json", result.dump(1) + "\n");
}

}  // namespace

std::string run_collect(const CollectOptions& options) {
    std::vector<std::string> dirs;
    for (const std::string& dir : options.submissions) dirs.push_back(without_trailing_slashes(dir));
    check_folders(dirs, options.out_dir);
    std::vector<Submission> submissions;
    for (const std::string& dir : dirs) submissions.push_back(read_submission(dir));
    std::vector<std::string> allowed = kKeysAlwaysAllowed;
    allowed.insert(allowed.end(), options.allowed_keys.begin(), options.allowed_keys.end());
    require_same_assignment(submissions, allowed);

    make_directories(options.out_dir);
    const DirectoryLock lock(options.out_dir);
    nlohmann::json marker = {{"allowed_keys", allowed}, {"submissions", nlohmann::json::array()}};
    for (const std::string& dir : dirs) {
        nlohmann::json entry = nlohmann::json::object();
        config::set_text_field(entry, "dir", dir);
        marker["submissions"].push_back(entry);
    }
    write_file_atomic(options.out_dir + "/" + kCollectMarker, marker.dump(1) + "\n");

    const std::vector<AllowedDifference> differences = allowed_differences(submissions);
    Report report(options.out_dir);
    write_summary(report, options.command, submissions, allowed);
    write_scores(report, submissions);
    write_differences(report, submissions, differences);
    write_curves(report, submissions);
    write_provenance_table(report, submissions);
    write_json(options.out_dir, submissions, allowed, differences);
    return report.write();
}

}  // namespace tf
