// tapeformer.load_run and tapeformer.Run: a trained run's config and vocabulary, `eval`'s report,
// and teacher-forced logits. Decoding and inspection add their methods in their own files.
#include <filesystem>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "analysis/studies/analyze.h"
#include "autograd/tape.h"
#include "decoding/run_evaluation.h"
#include "python/bindings.h"
#include "python/json_python.h"
#include "python/run_handle.h"
#include "python/tensor_numpy.h"

namespace tf::python {

namespace {

std::shared_ptr<PythonRun> load(const std::filesystem::path& directory, const std::string& weights,
                                const std::optional<std::filesystem::path>& data, bool splits, bool reference) {
    if (weights != "best" && weights != "latest")
        throw ValueError("load_run: weights must be \"best\" or \"latest\", got \"" + weights + "\"");
    auto run = std::make_shared<PythonRun>();
    run->directory = directory.string();
    {
        const py::gil_scoped_release release;   // reading the data and the checkpoint
        run->loaded = train::load_run(run->directory, weights, splits ? train::RunData::splits : train::RunData::vocabulary,
                                      data ? data->string() : "");
    }
    run->path = reference ? kernels::KernelPath::reference : run->loaded.config.kernels;
    return run;
}

// The teacher-forced logits (T, V) of one text, as `analyze` builds its input (its task's rule).
Tensor logits_of(train::LoadedRun& run, const std::optional<std::string>& text) {
    const AnalysisExample example = analysis_example(run, text);
    const NoGradGuard no_tape;
    const Tensor logits = run.model->forward(example.input);   // (1, T, V)
    return logits.view({logits.size(1), logits.size(2)});
}

}  // namespace

py::class_<PythonRun, std::shared_ptr<PythonRun>> add_run(py::module_& module) {
    py::class_<PythonRun, std::shared_ptr<PythonRun>> run(
        module, "Run",
        "A trained run, loaded from its directory by load_run(): the model with its best (or latest) weights,\n"
        "its resolved config and vocabulary. Its methods run what the CLI's commands on a run do.");
    module.def("load_run", &load, py::arg("run_dir"), py::arg("weights") = "best", py::arg("data") = py::none(),
               py::arg("splits") = true, py::arg("reference") = false,
               "Loads a run directory (what `tapeformer eval --run DIR` loads) and returns a Run.\n"
               "weights: 'best' (best.safetensors, else the latest checkpoint) or 'latest'.\n"
               "data: the run's data file, when it is no longer at its config's data.path (as --data).\n"
               "splits: read the data's splits (evaluate() and the default example need them); False reads only\n"
               "  the vocabulary, which vocab.json keeps, so a run copied without its data loads.\n"
               "reference: run every op on its readable form (as --reference).\n"
               "Raises tapeformer.InputError (a ValueError) subclasses naming the problem: DataError for a missing\n"
               "run directory or vocab.json, CheckpointError for an unreadable checkpoint.");
    run.def_property_readonly("directory", [](const PythonRun& self) { return self.directory; }, "The run directory.")
        .def_property_readonly("step", [](const PythonRun& self) { return self.loaded.step; }, "The step its weights were saved at.")
        .def_property_readonly("checkpoint", [](const PythonRun& self) { return self.loaded.checkpoint; },
                               "The file the weights came from.")
        .def_property_readonly("config", [](const PythonRun& self) { return to_python(self.loaded.config.resolved); },
                               "The run's resolved config (config.resolved.json), as a dict.")
        .def_property_readonly("is_language_model", [](const PythonRun& self) { return self.loaded.dataset.is_lm(); },
                               "True for a language model (generate), False for a seq2seq model (reconstruct).")
        .def_property_readonly("vocab_size", [](const PythonRun& self) { return self.loaded.dataset.tokenizer.size(); },
                               "How many token ids the model scores (V).")
        .def(
            "encode", [](const PythonRun& self, const std::string& text) { return self.loaded.dataset.tokenizer.encode(text); },
            py::arg("text"), "The token ids of a text (a list of int), as the run's tokenizer reads it.")
        .def(
            "decode",
            [](const PythonRun& self, const std::vector<int64_t>& ids) { return text_of(self.loaded, ids); },
            py::arg("ids"), "The text of a list of token ids.")
        .def(
            "evaluate",
            [](PythonRun& self, const std::string& split) {
                const config::Json report =
                    with_run(self, [&](train::LoadedRun& loaded) { return train::evaluation_report(loaded, self.directory, split); });
                return to_python(report);
            },
            py::arg("split") = "test",
            "`tapeformer eval --run DIR --split SPLIT` as a dict: step, split, loss, perplexity, token_accuracy,\n"
            "sequence_accuracy, tokens, sequences, run, checkpoint; for a seq2seq run also decoding, exact_match,\n"
            "cer, chrf and bleu, the scores of the text the model decodes itself. split: 'test', 'valid' or 'train'.")
        .def(
            "logits",
            [](PythonRun& self, const std::optional<std::string>& text) {
                const Tensor logits = with_run(self, [&](train::LoadedRun& loaded) { return logits_of(loaded, text); });
                return to_numpy(logits);
            },
            py::arg("text") = py::none(),
            "The teacher-forced next-token logits of one example, a float32 array (T, V): row t scores the token\n"
            "after the decoder's first t + 1 inputs (<bos> and the target's first t tokens). text: read as\n"
            "`analyze --input` reads it (an autoencoder's or copy task's target is the text itself; a language\n"
            "model's input is the text); None: the first test example.")
        .def("__repr__", [](const PythonRun& self) {
            return "tapeformer.Run('" + self.directory + "', step " + std::to_string(self.loaded.step) + ")";
        });
    return run;
}

}  // namespace tf::python
