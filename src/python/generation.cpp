// Run.reconstruct and Run.generate: the text a model writes, as `tapeformer reconstruct --input` and
// `tapeformer generate` write it (the same code: decoding/run_decoding.h), with the GIL released
// while it decodes.
#include <optional>

#include <pybind11/stl.h>

#include "decoding/run_decoding.h"
#include "python/bindings.h"
#include "python/run_handle.h"

namespace tf::python {

namespace {

// beam, max_length and cache as the CLI's --beam, --max-length and --cache; None: the run's decode section.
train::RunDecodeChoices decode_choices(std::optional<int64_t> beam, std::optional<int64_t> max_length,
                                       const std::optional<std::string>& cache) {
    train::RunDecodeChoices choices;
    if (beam) {
        if (*beam < 1 || *beam > train::kMaxBeamSize)
            throw ValueError("beam: expected an integer in [1, " + std::to_string(train::kMaxBeamSize) + "], got " + std::to_string(*beam));
        choices.beam = *beam;
    }
    if (max_length) {
        if (*max_length < 1) throw ValueError("max_length: expected a positive integer, got " + std::to_string(*max_length));
        choices.max_length = *max_length;
    }
    if (cache) {
        choices.cache = enum_from_name<DecodeCache>(*cache);
        if (!choices.cache) throw ValueError("cache: expected auto, on or off, got \"" + *cache + "\"");
    }
    return choices;
}

std::vector<std::string> reconstruct(PythonRun& run, const std::vector<std::string>& texts, const train::RunDecodeChoices& choices) {
    return with_run(run, [&](train::LoadedRun& loaded) {
        train::require_seq2seq(loaded, run.directory);
        const std::vector<std::vector<int64_t>> outputs =
            train::reconstruct_examples(loaded, train::typed_examples(loaded, texts), choices);
        std::vector<std::string> written;
        for (const auto& tokens : outputs) written.push_back(text_of(loaded, tokens));
        return written;
    });
}

// A list (or any iterable) of str; TypeError naming what else it holds.
std::vector<std::string> texts_of(const py::handle& texts) {
    const auto refuse = [](const py::handle& what) {
        return py::type_error("reconstruct: expected a str or a list of str, got " + py::cast<std::string>(py::repr(what)));
    };
    if (!py::isinstance<py::iterable>(texts)) throw refuse(texts);
    std::vector<std::string> list;
    for (const py::handle& text : py::iter(texts)) {
        if (!py::isinstance<py::str>(text)) throw refuse(text);
        list.push_back(py::cast<std::string>(text));
    }
    return list;
}

}  // namespace

void add_run_decoding(py::class_<PythonRun, std::shared_ptr<PythonRun>>& run) {
    run.def(
           "reconstruct",
           [](PythonRun& self, const py::object& texts, std::optional<int64_t> beam, std::optional<int64_t> max_length,
              const std::optional<std::string>& cache) -> py::object {
               const train::RunDecodeChoices choices = decode_choices(beam, max_length, cache);
               if (py::isinstance<py::str>(texts)) return py::str(reconstruct(self, {py::cast<std::string>(texts)}, choices).front());
               return py::cast(reconstruct(self, texts_of(texts), choices));
           },
           py::arg("texts"), py::kw_only(), py::arg("beam") = py::none(), py::arg("max_length") = py::none(),
           py::arg("cache") = py::none(),
           "A seq2seq model's output for each text, as `tapeformer reconstruct --input TEXT` prints it: a str for\n"
           "a str, a list of str for a list (decoded together, each as it would be alone).\n"
           "beam: beam size (1 is greedy); max_length: tokens to write at most; cache: 'auto', 'on' or 'off'.\n"
           "None takes the run's decode section. Raises ConfigError for a language model (use generate).")
        .def(
            "generate",
            [](PythonRun& self, const std::string& prompt, std::optional<int64_t> max_length, double temperature, int64_t top_k,
               double top_p, uint64_t seed, const std::optional<std::string>& cache) {
                const train::RunDecodeChoices choices = decode_choices({}, max_length, cache);
                return with_run(self, [&](train::LoadedRun& loaded) {
                    train::require_language_model(loaded, self.directory);
                    const std::vector<int64_t> prompt_tokens = loaded.dataset.tokenizer.encode(prompt);
                    const train::DecodeOptions options =
                        train::generation_options(loaded, choices, static_cast<int64_t>(prompt_tokens.size()));
                    Rng rng(seed);
                    return text_of(loaded, train::sample_continuation(*loaded.model, prompt_tokens, options,
                                                                      {temperature, top_k, top_p}, rng));
                });
            },
            py::arg("prompt") = "", py::kw_only(), py::arg("max_length") = py::none(), py::arg("temperature") = 1.0,
            py::arg("top_k") = 0, py::arg("top_p") = 1.0, py::arg("seed") = 1, py::arg("cache") = py::none(),
            "A language model's continuation of the prompt, sampled: the text after the prompt (the \"generated\"\n"
            "field of `tapeformer generate --json` with the same options and seed). temperature > 0; top_k: the k\n"
            "most likely tokens (0: all); top_p in (0, 1]: nucleus sampling; seed: the sampling seed.\n"
            "Raises ConfigError for a seq2seq model (use reconstruct).");
}

}  // namespace tf::python
