// The per-run analysis report.
#include "analysis/studies/analyze.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/studies/attention_stats.h"
#include "analysis/studies/gradient_probe.h"
#include "analysis/reports/markdown_text.h"
#include "analysis/reports/report.h"
#include "autograd/tape.h"
#include "config/json_bytes.h"
#include "train/evaluate.h"
#include "datasets/synthetic.h"
#include "util/files.h"

namespace tf {

namespace {

// The target of typed text is known only where it is the text itself, or where there is none (lm).
bool reads_typed_text(const train::DataTask& task) {
    return task.kind == train::TaskKind::autoencode || task.is_lm() || (task.synthetic && task.synthetic->target_is_source);
}

// "autoencode, copy and lm": the tasks reads_typed_text accepts.
std::string typed_text_tasks() {
    std::vector<std::string> names{name_of(train::TaskKind::autoencode)};
    for (const train::SyntheticTask& task : train::synthetic_tasks())
        if (task.target_is_source) names.push_back(task.name);
    std::string listed;
    for (std::size_t i = 0; i < names.size(); ++i) listed += (i == 0 ? "" : ", ") + names[i];
    return listed + " and " + name_of(train::TaskKind::lm);
}

}  // namespace

AnalysisExample analysis_example(const train::LoadedRun& run, const std::optional<std::string>& text) {
    if (!text) {
        if (run.dataset.test.empty()) throw DataError("analyze: the run's test split is empty; pass --input");
        return analysis_example(run, run.dataset.test.front());
    }
    const train::DataTask& task = run.config.data.task;
    if (!reads_typed_text(task))
        throw DataError("analyze --input: the run's task \"" + task.name() + "\" makes its target by its own rule, so the " +
                        "decoder cannot be fed typed text; --input works for " + typed_text_tasks() + " runs " +
                        "(leave it out to analyze the first test example)");
    train::Example example;
    example.src = train::encode_typed_text(run.dataset.tokenizer, *text, "analyze --input");
    example.tgt = example.src;
    return analysis_example(run, example);
}

AnalysisExample analysis_example(const train::LoadedRun& run, const train::Example& example) {
    const train::Tokenizer& tokenizer = run.dataset.tokenizer;
    const train::Batch batch = train::make_batch({example}, {0}, run.dataset.is_lm());
    AnalysisExample result{train::to_model_input(batch), batch.tgt_out, {}, {}};
    // A byte-level BPE token need not be UTF-8, which the plots (SVG) and the viewer's JSON must be.
    for (int64_t id : batch.src.values) result.source_labels.push_back(config::replace_invalid_utf8(tokenizer.token(id)));
    for (int64_t id : batch.tgt_in.values) result.target_labels.push_back(config::replace_invalid_utf8(tokenizer.token(id)));
    return result;
}

std::string example_text(const train::LoadedRun& run, const AnalysisExample& example) {
    return config::replace_invalid_utf8(run.dataset.tokenizer.decode(example.input.tgt_in.values));
}

std::vector<AttentionRecord> record_attention(SequenceModel& model, const AnalysisExample& example) {
    NoGradGuard no_grad;
    ForwardObserver recorder{.record_attention = true};
    ModelInput input = example.input;
    input.observer = &recorder;
    model.forward(input);
    return recorder.attention;
}

namespace {

// The tokens along one side of a map: the source's or the decoder input's.
const std::vector<std::string>& labels_of(const AnalysisExample& example, SequenceSide side) {
    return side == SequenceSide::source ? example.source_labels : example.target_labels;
}

// The tokens a dependency kernel's columns stand for: the source, or for a language model the text.
const std::vector<std::string>& kernel_input_labels(const SequenceModel& model, const AnalysisExample& example) {
    return model.is_language_model() ? example.target_labels : example.source_labels;
}

// What the viewer's caption says of a recorded map: self-attention over the target side is a
// decoder's or a language model's, and causal (the models mask it); over the source, an encoder's;
// any other (cross-attention, a recurrent decoder's attention) has decoder queries over the source.
ViewerMapKind viewer_kind(const AttentionRecord& record) {
    if (record.kind != "self") return ViewerMapKind::cross_attention;
    return record.queries_from == SequenceSide::target ? ViewerMapKind::causal_self_attention : ViewerMapKind::encoder_self_attention;
}

// Head h's weights of the (first) example, rows queries and columns keys.
Matrix head_weights(const AttentionRecord& map, int64_t h) {
    Matrix weights(static_cast<std::size_t>(map.weights.size(2)));
    for (int64_t i = 0; i < map.weights.size(2); ++i)
        for (int64_t j = 0; j < map.weights.size(3); ++j) weights[static_cast<std::size_t>(i)].push_back(map.weights.at({0, h, i, j}));
    return weights;
}

// Attention heatmaps (one per head) and the head statistics table.
nlohmann::json report_attention(Report& report, const std::vector<AttentionRecord>& records, const AnalysisExample& example) {
    nlohmann::json maps = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    report.heading(2, "Attention maps");
    for (const AttentionRecord& map : records) {
        const std::vector<HeadStats> stats = head_stats(map.weights);
        nlohmann::json entry = {{"name", map.name}, {"kind", map.kind}, {"heads", nlohmann::json::array()}};
        for (int64_t h = 0; h < map.weights.size(1); ++h) {
            const svg::Heatmap heatmap{map.name + " head " + std::to_string(h) + " (" + map.kind + ")", "key position",
                                       "query position", "weight", head_weights(map, h), labels_of(example, map.keys_from),
                                       labels_of(example, map.queries_from)};
            std::string file = map.name + "_head" + std::to_string(h);
            for (char& c : file) c = c == '.' ? '_' : c;
            report.plot(file, heatmap);
            rows.push_back({map.name, map.kind, std::to_string(h), format_number(stats[h].entropy),
                            format_number(stats[h].uniform_entropy), format_number(stats[h].mean_distance)});
            entry["heads"].push_back({{"head", h}, {"entropy", stats[h].entropy}, {"uniform_entropy", stats[h].uniform_entropy},
                                      {"mean_distance", stats[h].mean_distance}});
        }
        maps.push_back(entry);
    }
    if (rows.empty()) report.paragraph("This model has no attention.");
    else report.table({"attention", "kind", "head", "entropy (nats)", "uniform would be", "mean distance |i − j|"}, rows);
    return maps;
}

// √d_k check on the trained model's real queries and keys (Vaswani et al. 2017 §3.2.1, footnote 4).
nlohmann::json report_scale(Report& report, const std::vector<AttentionRecord>& records) {
    nlohmann::json checks = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    for (const AttentionRecord& map : records) {
        if (!map.queries.defined()) continue;
        const DotProductScale s = dot_product_scale(map.queries, map.keys);
        rows.push_back({map.name, std::to_string(s.d_k), format_number(s.component_variance_q), format_number(s.component_variance_k),
                        format_number(s.variance_raw), format_number(s.variance_scaled)});
        checks.push_back({{"name", map.name}, {"d_k", s.d_k}, {"var_q", s.component_variance_q}, {"var_k", s.component_variance_k},
                          {"var_qk", s.variance_raw}, {"var_qk_scaled", s.variance_scaled}});
    }
    if (rows.empty()) return checks;
    report.heading(2, "The √d_k scale on real queries and keys");
    report.paragraph("For independent unit-variance components, Var(q·k) = d_k and Var(q·k/√d_k) = 1 "
                     "(Vaswani et al. 2017 §3.2.1, footnote 4). "
                     "A trained model's q and k are neither independent nor unit-variance; this is what they are.");
    report.table({"attention", "d_k", "Var(q_d)", "Var(k_d)", "Var(q·k)", "Var(q·k/√d_k)"}, rows);
    return checks;
}

// The dependency kernel K(i, j) = ‖∂y_i/∂x_j‖ and its receptive field (docs/math/theory.md §4, §5).
nlohmann::json report_dependency(Report& report, SequenceModel& model, const AnalysisExample& example, const Matrix& kernel,
                                 int64_t probes) {
    const std::vector<int64_t> field = effective_receptive_field(kernel, 0.01);
    report.heading(2, "Dependency kernel");
    const auto& inputs = kernel_input_labels(model, example);
    report.plot("dependency_kernel", svg::Heatmap{"K(i, j) = ||dy_i/dx_j||", "input position j", "output position i",
                                                  "norm", kernel, inputs, example.target_labels});
    double mean_field = 0;
    for (int64_t size : field) mean_field += static_cast<double>(size) / static_cast<double>(field.size());
    report.paragraph("Effective receptive field (docs/math/theory.md §5, ε = 1% of each row's largest entry): "
                     "on average " +
                     format_number(mean_field) + " of " + std::to_string(kernel.empty() ? 0 : kernel[0].size()) +
                     " input positions per output position.");
    return {{"kernel", kernel}, {"receptive_field", field}, {"mean_receptive_field", mean_field}, {"probes", probes}};
}

}  // namespace

std::vector<ViewerMap> viewer_maps(const std::vector<AttentionRecord>& records, const AnalysisExample& example,
                                   const Matrix& kernel, const SequenceModel& model, const std::string& prefix) {
    std::vector<ViewerMap> maps;
    for (const AttentionRecord& record : records)
        for (int64_t h = 0; h < record.weights.size(1); ++h)
            maps.push_back({prefix + record.name + ", head " + std::to_string(h) + " (" + record.kind + ")", viewer_kind(record),
                            labels_of(example, record.queries_from), labels_of(example, record.keys_from), head_weights(record, h)});
    maps.push_back({prefix + "dependency kernel K(i, j) = ||dy_i/dx_j|| (outputs over inputs)", ViewerMapKind::dependency_kernel,
                    example.target_labels, kernel_input_labels(model, example), kernel});
    return maps;
}

std::string analyze_run(train::LoadedRun& run, const std::string& run_dir, const AnalysisOptions& options) {
    const std::string out = options.out_dir.empty() ? run_dir + "/analysis" : options.out_dir;
    Report report(out);
    const AnalysisExample example = analysis_example(run, options.input);
    report.heading(1, "Analysis of " + markdown::literal(run_dir));
    report.paragraph("Weights: " + markdown::literal(run.checkpoint) + " (step " + std::to_string(run.step) + "). Input: \"" +
                     markdown::literal(example_text(run, example)) + "\".");
    nlohmann::json result = {{"run", run_dir}, {"checkpoint", run.checkpoint}, {"step", run.step}};
    const std::vector<AttentionRecord> records = record_attention(*run.model, example);
    result["attention"] = report_attention(report, records, example);
    result["scale"] = report_scale(report, records);
    Rng rng(7);
    const Matrix kernel = dependency_kernel(*run.model, example.input, options.probes, rng);
    result["dependency"] = report_dependency(report, *run.model, example, kernel, options.probes);
    report.heading(2, "Viewer");
    report.paragraph("Every attention map above and the dependency kernel, one at a time, on this input and the next "
                     "test examples: choose an example and a map; each row is a query, shading the keys it attends to (for "
                     "the kernel, an output and the inputs it depends on).");
    std::vector<ViewerExample> views{{example_text(run, example),
                                      viewer_maps(records, example, kernel, *run.model, "")}};
    const std::size_t shown = options.input ? 1 : static_cast<std::size_t>(std::max<int64_t>(1, options.viewer_examples));
    for (std::size_t e = 1; e < shown && e < run.dataset.test.size(); ++e) {
        const AnalysisExample next = analysis_example(run, run.dataset.test[e]);
        Rng next_rng(7 + e);
        const Matrix next_kernel = dependency_kernel(*run.model, next.input, options.probes, next_rng);
        views.push_back({example_text(run, next),
                         viewer_maps(record_attention(*run.model, next), next, next_kernel, *run.model, "")});
    }
    report.viewer(views);
    write_file_atomic(out + "/analysis.json", result.dump(1) + "\n");
    return report.write();
}

}  // namespace tf
