// `tapeformer reconstruct` (seq2seq: decode inputs, or test examples, and show them beside the
// target) and `tapeformer generate` (language model: continue a prompt by sampling).
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "train/decoding.h"
#include "train/evaluate.h"
#include "train/run_loader.h"

namespace tf::cli {

namespace {

struct DecodeArguments {
    std::string run_dir, prompt;
    std::vector<std::string> inputs;
    int64_t count = 5, beam = 0, max_length = 0, top_k = 0;
    double temperature = 1.0;
    uint64_t seed = 1;
};

// Tokens to generate: --max-length, else the run's decode.max_length, capped where a transformer
// runs out of positions (its decoder sees <bos>, any prompt, and every token generated so far).
int64_t decode_length(const train::LoadedRun& run, const DecodeArguments& args, int64_t prompt_length) {
    const int64_t requested = args.max_length > 0 ? args.max_length : run.config.decode.max_length;
    if (run.config.model.type == ModelKind::rnn_seq2seq) return requested;
    return std::min(requested, run.config.model.max_length - prompt_length);
}

// Decodes one batch with greedy or beam search, as the run's decode section (or --beam) says.
std::vector<std::vector<int64_t>> decode(train::LoadedRun& run, const ModelInput& input, const DecodeArguments& args) {
    train::DecodeOptions options;
    options.max_length = decode_length(run, args, 0);
    const int64_t beam = args.beam > 0 ? args.beam : run.config.decode.beam_size;
    if (beam <= 1) return train::greedy_decode(*run.model, input, options);
    return train::beam_search(*run.model, input, options, {beam, run.config.decode.length_penalty});
}

int run_reconstruct(const DecodeArguments& args) {
    train::LoadedRun run = train::load_run(args.run_dir);
    if (run.dataset.is_lm()) throw ConfigError("reconstruct: " + args.run_dir + " is a language model; use `tapeformer generate`");
    const train::Tokenizer& tokenizer = run.dataset.tokenizer;
    std::vector<train::Example> examples;
    if (args.inputs.empty()) {
        for (int64_t i = 0; i < args.count && i < static_cast<int64_t>(run.dataset.test.size()); ++i) examples.push_back(run.dataset.test[i]);
    } else {
        for (const auto& text : args.inputs) examples.push_back({tokenizer.encode(text), {}});
    }
    std::vector<int64_t> all(examples.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    const train::Batch batch = train::make_batch(examples, all, false);
    const auto outputs = decode(run, train::to_model_input(batch), args);
    int64_t exact = 0;
    for (std::size_t i = 0; i < examples.size(); ++i) {
        std::cout << "input:  " << tokenizer.decode(examples[i].src) << "\n";
        if (!examples[i].tgt.empty()) {
            std::cout << "target: " << tokenizer.decode(examples[i].tgt) << "\n";
            exact += outputs[i] == examples[i].tgt;
        }
        std::cout << "output: " << tokenizer.decode(outputs[i]) << "\n\n";
    }
    if (args.inputs.empty()) std::cout << exact << " of " << examples.size() << " reconstructed exactly\n";
    return 0;
}

int run_generate(const DecodeArguments& args) {
    train::LoadedRun run = train::load_run(args.run_dir);
    if (!run.dataset.is_lm()) throw ConfigError("generate: " + args.run_dir + " is a sequence-to-sequence model; use `tapeformer reconstruct`");
    const std::vector<int64_t> prompt = run.dataset.tokenizer.encode(args.prompt);
    train::DecodeOptions options;
    options.max_length = decode_length(run, args, static_cast<int64_t>(prompt.size()));
    if (options.max_length < 1)
        throw ValueError("generate: the prompt is " + std::to_string(prompt.size()) + " tokens and, with <bos>, fills the model's " +
                         std::to_string(run.config.model.max_length) + " positions (model.max_length): nothing is left to generate");
    Rng rng(args.seed);
    const auto generated = train::sample_continuation(*run.model, prompt, options, {args.temperature, args.top_k}, rng);
    std::vector<int64_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    std::cout << run.dataset.tokenizer.decode(all) << "\n";
    return 0;
}

}  // namespace

void add_decode_commands(CLI::App& app, int& exit_code) {
    auto args = std::make_shared<DecodeArguments>();
    auto* reconstruct = app.add_subcommand("reconstruct", "Decode inputs (or test examples) with a seq2seq run's model.");
    reconstruct->add_option("--run", args->run_dir, "the run directory")->required();
    reconstruct->add_option("--input", args->inputs, "text to reconstruct (repeatable); default: test examples");
    reconstruct->add_option("--count", args->count, "how many test examples")->check(CLI::PositiveNumber);
    reconstruct->add_option("--beam", args->beam, "beam size (default: the run's decode.beam_size)")->check(CLI::PositiveNumber);
    reconstruct->add_option("--max-length", args->max_length, "tokens to generate at most")->check(CLI::PositiveNumber);
    reconstruct->footer("Examples:\n  tapeformer reconstruct --run runs/default\n"
                        "  tapeformer reconstruct --run runs/poetry_gru --input \"the woods are lovely, dark and deep\"");
    reconstruct->callback([args, &exit_code] { exit_code = run_reconstruct(*args); });

    auto* generate = app.add_subcommand("generate", "Continue a prompt by sampling from a language-model run.");
    generate->add_option("--run", args->run_dir, "the run directory")->required();
    generate->add_option("--prompt", args->prompt, "the text to continue");
    generate->add_option("--temperature", args->temperature, "sampling temperature τ > 0")->check(CLI::PositiveNumber);
    generate->add_option("--top-k", args->top_k, "sample among the k most likely tokens (0 = all)")->check(CLI::NonNegativeNumber);
    generate->add_option("--max-length", args->max_length, "tokens to generate at most")->check(CLI::PositiveNumber);
    generate->add_option("--seed", args->seed, "sampling seed");
    generate->footer("Example:\n  tapeformer generate --run runs/char_lm --prompt \"The sea\" --temperature 0.8 --top-k 10");
    generate->callback([args, &exit_code] { exit_code = run_generate(*args); });
}

}  // namespace tf::cli
