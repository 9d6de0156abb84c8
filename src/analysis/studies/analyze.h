// `tapeformer analyze`: what a trained model learned, for one input — attention heatmaps per layer
// and head (self, cross, additive), each head's entropy and mean attention distance, the dependency
// kernel K(i, j) with its effective receptive field, and the √d_k scale check on the model's real
// queries and keys. Written as RUN/analysis/report.md with SVG plots and analysis.json.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/reports/attention_viewer.h"
#include "analysis/studies/gradient_probe.h"
#include "layers/forward_observer.h"
#include "train/run_loader.h"

namespace tf {

// The viewer's examples, at most: each adds every attention map of one example to report.html.
inline constexpr int64_t kMaxViewerExamples = 20;

struct AnalysisOptions {
    std::optional<std::string> input;  // text to analyse; none = the first test example
    int64_t probes = 8;      // random projections for the dependency kernel (0 = exact)
    int64_t viewer_examples = 3;  // test examples in report.html's viewer (the first is the report's); 1 with input
    std::string out_dir;     // default RUN/analysis
};

// Returns the path of the report it wrote.
std::string analyze_run(train::LoadedRun& run, const std::string& run_dir, const AnalysisOptions& options);

// The model input for one text (or the first test example): source and target as the run's
// task builds them (autoencoding: target = source; LM: the text itself). Labels name each position.
struct AnalysisExample {
    ModelInput input;
    IndexTensor targets;                                   // (1, T)
    std::vector<std::string> source_labels, target_labels;  // one per source / decoder-input position
};
// Typed text must hold at least one token (train::encode_typed_text); none: the first test example.
AnalysisExample analysis_example(const train::LoadedRun& run, const std::optional<std::string>& text);
AnalysisExample analysis_example(const train::LoadedRun& run, const train::Example& example);
// The text an example reads, as its decoder input decodes (a byte that is not UTF-8 as U+FFFD):
// what the viewer calls it.
std::string example_text(const train::LoadedRun& run, const AnalysisExample& example);

// The attention every layer records in one forward pass over the example (no tape).
std::vector<AttentionRecord> record_attention(SequenceModel& model, const AnalysisExample& example);

// For report.html's viewer: every attention map `model` recorded on the example, one per head,
// then its dependency kernel there (columns: the source, or a language model's text); each label
// starts with `prefix`. Compare and analyze record each of the viewer's examples in this way.
std::vector<ViewerMap> viewer_maps(const std::vector<AttentionRecord>& records, const AnalysisExample& example,
                                   const Matrix& kernel, const SequenceModel& model, const std::string& prefix);

}  // namespace tf
