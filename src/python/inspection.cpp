// What a run's model learned, as arrays a notebook can draw: the attention maps and the dependency
// kernel of one input (what `tapeformer analyze` plots and its viewer shows), and Run.analyze,
// which writes analyze's report and returns its data.
#include <optional>

#include <pybind11/stl.h>

#include "analysis/studies/analyze.h"
#include "autograd/random.h"
#include "python/bindings.h"
#include "python/json_python.h"
#include "python/run_handle.h"
#include "python/tensor_numpy.h"

namespace tf::python {

namespace {

const char* side_name(SequenceSide side) { return side == SequenceSide::source ? "source" : "target"; }

const std::vector<std::string>& tokens_of(const AnalysisExample& example, SequenceSide side) {
    return side == SequenceSide::source ? example.source_labels : example.target_labels;
}

struct RecordedAttention {
    AnalysisExample example;
    std::vector<AttentionRecord> records;
};

struct DependencyKernel {
    AnalysisExample example;
    Matrix kernel;
    bool language_model = false;
};

void check_probes(int64_t probes) {
    if (probes < 0 || probes > kMaxProbes)
        throw ValueError("probes: expected an integer in [0, " + std::to_string(kMaxProbes) + "] (0 = exact), got " +
                         std::to_string(probes));
}

}  // namespace

void add_run_inspection(py::class_<PythonRun, std::shared_ptr<PythonRun>>& run) {
    run.def(
           "attention",
           [](PythonRun& self, const std::optional<std::string>& text) {
               const RecordedAttention recorded = with_run(self, [&](train::LoadedRun& loaded) {
                   AnalysisExample example = analysis_example(loaded, text);
                   std::vector<AttentionRecord> records = record_attention(*loaded.model, example);
                   return RecordedAttention{std::move(example), std::move(records)};
               });
               py::list maps;
               for (const AttentionRecord& record : recorded.records) {
                   const Tensor& weights = record.weights;   // (1, H, T, S): the one example
                   py::dict map;
                   map["name"] = record.name;
                   map["kind"] = record.kind;
                   map["queries_from"] = side_name(record.queries_from);
                   map["keys_from"] = side_name(record.keys_from);
                   map["weights"] = to_numpy(weights.view({weights.size(1), weights.size(2), weights.size(3)}));
                   map["query_tokens"] = py::cast(tokens_of(recorded.example, record.queries_from));
                   map["key_tokens"] = py::cast(tokens_of(recorded.example, record.keys_from));
                   maps.append(map);
               }
               return maps;
           },
           py::arg("text") = py::none(),
           "Every attention map the model computes on one input, in forward order: a list of dicts with name\n"
           "(the layer's dotted name), kind ('self', 'cross', or a recurrent decoder's 'additive', 'luong_dot',\n"
           "'luong_general'), queries_from and keys_from ('source' or 'target'), weights (a float32 array\n"
           "(heads, queries, keys) whose rows sum to 1), query_tokens and key_tokens (the tokens along each side).\n"
           "text: read as `analyze --input` reads it; None: the first test example. A model without attention\n"
           "gives [].")
        .def(
            "dependency_kernel",
            [](PythonRun& self, const std::optional<std::string>& text, int64_t probes, uint64_t seed) {
                check_probes(probes);
                const DependencyKernel measured = with_run(self, [&](train::LoadedRun& loaded) {
                    AnalysisExample example = analysis_example(loaded, text);
                    Rng rng(seed);
                    Matrix kernel = dependency_kernel(*loaded.model, example.input, probes, rng);
                    return DependencyKernel{std::move(example), std::move(kernel), loaded.model->is_language_model()};
                });
                py::dict result;
                result["kernel"] = to_numpy(measured.kernel);
                result["output_tokens"] = py::cast(measured.example.target_labels);
                // Its columns: the source, or a language model's own text.
                result["input_tokens"] =
                    py::cast(measured.language_model ? measured.example.target_labels : measured.example.source_labels);
                result["receptive_field"] = py::cast(effective_receptive_field(measured.kernel, 0.01));
                return result;
            },
            py::arg("text") = py::none(), py::kw_only(), py::arg("probes") = 8, py::arg("seed") = 7,
            "The dependency kernel K(i, j) = ||dy_i/dx_j|| of one input (docs/math/theory.md §4): a dict with kernel\n"
            "(a float64 array (outputs, inputs)), output_tokens, input_tokens and receptive_field (per output, the\n"
            "inputs above 1 % of its row's largest entry, §5). probes: random projections per output (0: exact);\n"
            "seed: theirs. The defaults are analyze's, so the kernel equals analysis.json's for the same input.")
        .def(
            "analyze",
            [](PythonRun& self, const std::optional<std::string>& text, int64_t probes, int64_t viewer_examples,
               const std::optional<std::string>& out_dir) {
                check_probes(probes);
                if (viewer_examples < 1 || viewer_examples > kMaxViewerExamples)
                    throw ValueError("viewer_examples: expected an integer in [1, " + std::to_string(kMaxViewerExamples) +
                                     "], got " + std::to_string(viewer_examples));
                const AnalysisOptions options{text, probes, viewer_examples, out_dir.value_or("")};
                const config::Json analysis = with_run(self, [&](train::LoadedRun& loaded) {
                    analyze_run(loaded, self.directory, options);
                    return read_report_json((options.out_dir.empty() ? self.directory + "/analysis" : options.out_dir) + "/analysis.json");
                });
                return to_python(analysis);
            },
            py::arg("text") = py::none(), py::kw_only(), py::arg("probes") = 8, py::arg("viewer_examples") = 3,
            py::arg("out_dir") = py::none(),
            "`tapeformer analyze --run DIR`: writes report.md, report.html, the plots and analysis.json into out_dir\n"
            "(None: DIR/analysis) and returns analysis.json's data as a dict: run, checkpoint, step, attention\n"
            "(each map's heads' entropy and mean distance), scale (the sqrt(d_k) check) and dependency (kernel,\n"
            "receptive_field, mean_receptive_field, probes).");
}

}  // namespace tf::python
