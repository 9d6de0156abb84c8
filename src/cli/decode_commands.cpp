// `tapeformer reconstruct` (seq2seq: decode inputs, or test examples, and show them beside the
// target, each as soon as it and those before it are done) and `tapeformer generate` (language
// model: continue a prompt by sampling, streaming the text as it is drawn).
#include <chrono>
#include <iostream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/reference_option.h"
#include "cli/seed_option.h"
#include "config/json_bytes.h"
#include "decoding/run_decoding.h"
#include "train/run_loader.h"

namespace tf::cli {

namespace {

struct DecodeArguments {
    std::string run_dir, prompt, cache;  // cache: "" = the run's decode.cache
    std::vector<std::string> inputs;
    int64_t count = 5, beam = 0, max_length = 0, top_k = 0;
    double temperature = 1.0, top_p = 1.0;
    uint64_t seed = 1;
    bool json = false;
    bool reference = false;   // --reference: the readable form of every op
};

// --beam, --max-length and --cache; each left out is the run's decode section's.
train::RunDecodeChoices decode_choices(const DecodeArguments& args) {
    train::RunDecodeChoices choices;
    choices.beam = args.beam, choices.max_length = args.max_length;
    if (args.cache.empty()) return choices;
    choices.cache = enum_from_name<DecodeCache>(args.cache);
    if (!choices.cache) throw ValueError("--cache: expected auto, on or off, got \"" + args.cache + "\"");
    return choices;
}

// Prints decoded items in input order as soon as every earlier one is done: items finish out of
// order in a batch, and a reader wants the first result while the rest still decode.
class InOrderPrinter {
public:
    using Print = std::function<void(int64_t item, const std::vector<int64_t>& tokens)>;
    explicit InOrderPrinter(Print print) : print_(std::move(print)) {}
    void done(int64_t item, const std::vector<int64_t>& tokens) {
        waiting_[item] = tokens;
        for (auto next = waiting_.find(next_); next != waiting_.end(); next = waiting_.find(next_)) {
            print_(next_++, next->second);
            waiting_.erase(next);
        }
    }

private:
    Print print_;
    int64_t next_ = 0;
    std::map<int64_t, std::vector<int64_t>> waiting_;
};

int run_reconstruct(const DecodeArguments& args) {
    // Typed inputs need only the vocabulary; the test examples need the data.
    train::LoadedRun run =
        train::load_run(args.run_dir, "best", args.inputs.empty() ? train::RunData::splits : train::RunData::vocabulary);
    const kernels::ReferenceKernels path(kernel_path(args.reference, run.config.kernels));
    train::require_seq2seq(run, args.run_dir);
    const train::Tokenizer& tokenizer = run.dataset.tokenizer;
    std::vector<train::Example> examples;
    if (args.inputs.empty()) {
        for (int64_t i = 0; i < args.count && i < static_cast<int64_t>(run.dataset.test.size()); ++i) examples.push_back(run.dataset.test[i]);
    } else {
        examples = train::typed_examples(run, args.inputs);
    }
    int64_t exact = 0;
    InOrderPrinter printer([&](int64_t item, const std::vector<int64_t>& output) {
        const train::Example& example = examples[static_cast<std::size_t>(item)];
        std::cout << "input:  " << tokenizer.decode(example.src) << "\n";
        if (!example.tgt.empty()) {
            std::cout << "target: " << tokenizer.decode(example.tgt) << "\n";
            exact += output == example.tgt;
        }
        std::cout << "output: " << tokenizer.decode(output) << "\n" << std::endl;
    });
    train::reconstruct_examples(run, examples, decode_choices(args),
                                [&](int64_t item, const std::vector<int64_t>& tokens) { printer.done(item, tokens); });
    if (args.inputs.empty()) std::cout << exact << " of " << examples.size() << " reconstructed exactly\n";
    return 0;
}

// Streams the text of prompt + generated tokens: each token's new characters as it is drawn
// (the text decoded so far, less what was already printed, so word tokens keep their spaces).
class TextStream {
public:
    TextStream(const train::Tokenizer& tokenizer, std::vector<int64_t> tokens) : tokenizer_(tokenizer), tokens_(std::move(tokens)) {
        write();
    }
    void add(int64_t token) {
        tokens_.push_back(token);
        write();
    }

private:
    void write() {
        const std::string text = tokenizer_.decode(tokens_);
        if (text.starts_with(shown_)) std::cout << text.substr(shown_.size()) << std::flush;
        shown_ = text;
    }
    const train::Tokenizer& tokenizer_;
    std::vector<int64_t> tokens_;
    std::string shown_;  // what the terminal shows so far
};

int run_generate(const DecodeArguments& args) {
    train::LoadedRun run = train::load_run(args.run_dir, "best", train::RunData::vocabulary);
    const kernels::ReferenceKernels path(kernel_path(args.reference, run.config.kernels));
    train::require_language_model(run, args.run_dir);
    const train::SampleOptions sample{args.temperature, args.top_k, args.top_p};
    const std::vector<int64_t> prompt = run.dataset.tokenizer.encode(args.prompt);
    const train::DecodeOptions options = train::generation_options(run, decode_choices(args), static_cast<int64_t>(prompt.size()));
    Rng rng(args.seed);
    const auto start = std::chrono::steady_clock::now();
    std::optional<TextStream> stream;
    if (!args.json) stream.emplace(run.dataset.tokenizer, prompt);
    const auto generated = train::sample_continuation(*run.model, prompt, options, sample, rng, [&](int64_t token) {
        if (stream) stream->add(token);
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!args.json) {
        std::cout << "\n";
        return 0;
    }
    std::vector<int64_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    nlohmann::json result = {{"generated_tokens", generated.size()}, {"seconds", seconds},
                             {"tokens_per_s", seconds > 0 ? double(generated.size()) / seconds : 0.0},
                             {"cache", name_of(options.cache)}, {"seed", args.seed}};
    // Sampled byte tokens (bpe) need not be UTF-8, nor need a typed prompt: each text also as hex then.
    config::set_text_field(result, "prompt", args.prompt);
    config::set_text_field(result, "text", run.dataset.tokenizer.decode(all));
    config::set_text_field(result, "generated", run.dataset.tokenizer.decode(generated));
    std::cout << result.dump() << "\n";
    return 0;
}

}  // namespace

void add_decode_commands(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<DecodeArguments>();
    auto* reconstruct = app.add_subcommand("reconstruct", "Decode inputs (or test examples) with a seq2seq run's model.");
    reconstruct->add_option("--run", args->run_dir, "the run directory")->required();
    reconstruct->add_option("--input", args->inputs, "text to reconstruct (repeatable); default: test examples");
    reconstruct->add_option("--count", args->count, "how many test examples")->check(CLI::PositiveNumber);
    reconstruct->add_option("--beam", args->beam, "beam size (default: the run's decode.beam_size)")
        ->check(CLI::Range(int64_t{1}, train::kMaxBeamSize));
    reconstruct->add_option("--max-length", args->max_length, "tokens to generate at most")->check(CLI::PositiveNumber);
    reconstruct->add_option("--cache", args->cache, "key/value cache: auto, on or off (default: the run's decode.cache)")
        ->check(CLI::IsMember(enum_name_list<DecodeCache>()));
    add_reference_flag(*reconstruct, args->reference);
    reconstruct->footer("Examples:\n  tapeformer reconstruct --run runs/default\n"
                        "  tapeformer reconstruct --run runs/poetry_gru --input \"the woods are lovely, dark and deep\"");
    reconstruct->callback([args, &exit_code] { exit_code = run_reconstruct(*args); });

    auto* generate = app.add_subcommand("generate", "Continue a prompt by sampling from a language-model run.");
    generate->add_option("--run", args->run_dir, "the run directory")->required();
    generate->add_option("--prompt", args->prompt, "the text to continue");
    generate->add_option("--temperature", args->temperature, "sampling temperature τ > 0")->check(CLI::PositiveNumber);
    generate->add_option("--top-k", args->top_k, "sample among the k most likely tokens (0 = all)")->check(CLI::NonNegativeNumber);
    generate->add_option("--top-p", args->top_p, "sample among the most likely tokens whose probabilities first reach p, in (0, 1]");
    generate->add_option("--max-length", args->max_length, "tokens to generate at most")->check(CLI::PositiveNumber);
    add_seed_option(*generate, args->seed, "sampling seed");
    generate->add_option("--cache", args->cache, "key/value cache: auto, on or off (default: the run's decode.cache)")
        ->check(CLI::IsMember(enum_name_list<DecodeCache>()));
    generate->add_flag("--json", args->json, "print one JSON object at the end instead of streaming the text");
    add_reference_flag(*generate, args->reference);
    generate->footer("Examples:\n  tapeformer generate --run runs/char_lm --prompt \"The sea\" --temperature 0.8 --top-k 10\n"
                     "  tapeformer generate --run runs/char_lm --prompt \"The sea\" --top-p 0.9 --json");
    generate->callback([args, &exit_code] { exit_code = run_generate(*args); });
}

}  // namespace tf::cli
