// `tapeformer collect`: students' submissions of one assignment — run directories (`tapeformer
// train`) or comparison folders (`tapeformer compare`) — gathered into one report for the teacher:
// every run's scores in one table, the loss curves in one plot, and where each was trained (its
// provenance.json, train/provenance.h). Only like can be ranked with like, so submissions whose
// configs or data differ are refused, naming the first keys and the submissions.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "config/json_reader.h"
#include "train/provenance.h"

namespace tf {

// The config keys any submission may change without --allow: its run name, and `threads`, which
// says how many cores the student's machine computes with, not what it computes.
inline const std::vector<std::string> kKeysAlwaysAllowed = {"name", "threads"};

struct CollectOptions {
    std::vector<std::string> submissions;    // run or comparison directories, as given
    std::string out_dir;
    // Keys that may differ too: "seed", "model.d_model", or a whole section ("optimizer"). A key
    // under `data` lets the data differ as well.
    std::vector<std::string> allowed_keys;
    std::string command;                     // how it was invoked, quoted in the report
};

// One row of the report: a run submission, or one run of a comparison submission.
struct CollectedRun {
    std::string submission;   // the directory as given
    std::string label;        // the submission; for a comparison's run "<dir>: <variant>, seed <k>"
    std::string run_dir;
    train::Provenance provenance;
    bool config_edited = false;   // config.resolved.json no longer hashes to what provenance.json recorded
    int64_t steps = 0;
    double train_seconds = 0;
    static constexpr double kNotRecorded = std::numeric_limits<double>::quiet_NaN();
    double final_train_loss = kNotRecorded, best_valid_loss = kNotRecorded;
    double valid_token_accuracy = kNotRecorded, valid_sequence_accuracy = kNotRecorded;   // the last evaluation's
    // What a comparison's report.json measured on the test split (a single run records no test metrics).
    double test_loss = kNotRecorded, test_token_accuracy = kNotRecorded, test_sequence_accuracy = kNotRecorded;
    std::vector<double> loss_steps, losses, valid_steps, valid_accuracies;
};

enum class SubmissionKind { run, comparison };

struct Submission {
    std::string dir;
    SubmissionKind kind = SubmissionKind::run;
    // config.resolved.json, or a comparison's compare.resolved.json with its "variants" list keyed
    // by name (so a difference is named "variants.gru.model.hidden_size").
    config::Json config;
    std::vector<CollectedRun> runs;   // one for a run; every (variant, seed) of a comparison
};

// Reads a submission directory; a ConfigError naming it when it is neither a trained run nor a
// finished comparison.
Submission read_submission(const std::string& dir);

// A config key that `allowed` lets differ: one of its keys, or a key under one.
bool key_allowed(const std::string& key, const std::vector<std::string>& allowed);
// Whether `allowed` lets the data differ: it names `data` or a key under it.
bool data_may_differ(const std::vector<std::string>& allowed);

// ConfigError unless every submission is of one kind, with the same config (but for the allowed
// keys) and the same data (by the data hashes recorded; a run without one is not compared).
void require_same_assignment(const std::vector<Submission>& submissions, const std::vector<std::string>& allowed);

// Reads and checks every submission, then writes report.md, report.html, report.json and plots/
// into options.out_dir (a new or empty folder, or an earlier collect's). Returns report.md's path.
std::string run_collect(const CollectOptions& options);

}  // namespace tf
