// The table of per-run measures that own predictions name.
#include "analysis/studies/run_measures.h"

#include <array>

namespace tf {

namespace {

constexpr Domain kScore{0, 100};   // chrF and BLEU

// Each row's `of` reads the field that report.json writes under the row's name.
constexpr std::array<RunMeasure, 15> kMeasures{{
    {"test_token_accuracy", "test token accuracy, teacher forcing, best validation checkpoint",
     "share of target tokens right, 0 to 1; higher is better", kShare, Confound::budget_and_size, [](const RunMeasurements& r) { return r.test.token_accuracy; }},
    {"test_sequence_accuracy", "test exact-sequence accuracy, teacher forcing, best validation checkpoint",
     "share of target sequences right in every token, 0 to 1; higher is better",
     kShare, Confound::budget_and_size, [](const RunMeasurements& r) { return r.test.sequence_accuracy; }},
    {"test_loss", "test cross-entropy per target token, teacher forcing, best validation checkpoint",
     "nats per token, ≥ 0; lower is better", kNonNegative, Confound::budget_and_size, [](const RunMeasurements& r) { return r.test.loss; }},
    {"best_valid_loss", "the validation loss of the best checkpoint, the one tested",
     "nats per token, ≥ 0; lower is better", kNonNegative, Confound::budget_and_size, [](const RunMeasurements& r) { return r.best_valid_loss; }},
    {"final_train_loss", "the last logged training loss", "nats per token, ≥ 0; lower is better",
     kNonNegative, Confound::budget_and_size, [](const RunMeasurements& r) { return r.final_train_loss; }},
    {"decoded_exact_match", "test lines the model decodes itself exactly right (not for a language model)",
     "share of lines, 0 to 1; higher is better", kShare, Confound::budget_and_size, [](const RunMeasurements& r) { return r.decoded.exact_match; }},
    {"decoded_cer", "character error rate of the self-decoded test lines (not for a language model)",
     "edits per reference character, ≥ 0 (can pass 1); lower is better", kNonNegative, Confound::budget_and_size, [](const RunMeasurements& r) { return r.decoded.cer; }},
    {"decoded_chrf", "chrF (β = 2) of the self-decoded test lines (not for a language model)",
     "0 to 100; higher is better", kScore, Confound::budget_and_size, [](const RunMeasurements& r) { return r.decoded.chrf; }},
    {"decoded_bleu", "corpus BLEU-4 of the self-decoded test lines (not for a language model)",
     "0 to 100; higher is better; 0 when no line has a matching 4-gram", kScore, Confound::budget_and_size, [](const RunMeasurements& r) { return r.decoded.bleu; }},
    {"gradient_noise_to_signal", "gradient noise-to-signal E‖g_b − ḡ‖²/‖ḡ‖² of 16 minibatches at the last checkpoint",
     "≥ 0, no unit; lower is a steadier gradient", kNonNegative, Confound::loss_level, [](const RunMeasurements& r) { return r.gradient_noise; }},
    {"grad_norm_cv", "coefficient of variation (sd/mean) of the logged gradient norm over the second half of training",
     "≥ 0, no unit; lower is a steadier norm", kNonNegative, Confound::loss_level, [](const RunMeasurements& r) { return r.grad_norm_cv; }},
    {"receptive_field", "mean effective receptive field of the dependency kernel (ε = 1 %)",
     "input positions, 0 to the input length; more is more context read", kNonNegative, Confound::input_length, [](const RunMeasurements& r) { return r.receptive_field; }},
    {"needed_share", "share of the (output, input) pairs the task needs that the dependency kernel reaches (not for a language model)",
     "0 to 1; 1 reaches every needed input", kShare, Confound::reach_not_use, [](const RunMeasurements& r) { return r.needed_share; }},
    {"parameters", "trainable scalars", "a count; the same for every seed", kNonNegative, Confound::none, [](const RunMeasurements& r) { return r.parameters; }},
    {"tokens_per_second", "training throughput, the mean of the logged tokens/s", "tokens per second; higher is faster, and a busy machine lowers it",
     kNonNegative, Confound::machine_load, [](const RunMeasurements& r) { return r.tokens_per_second; }},
}};

}  // namespace

std::span<const RunMeasure> run_measures() { return kMeasures; }

const RunMeasure* find_run_measure(const std::string& name) {
    for (const RunMeasure& measure : kMeasures)
        if (name == measure.name) return &measure;
    return nullptr;
}

std::vector<std::string> run_measure_names() {
    std::vector<std::string> names;
    for (const RunMeasure& measure : kMeasures) names.push_back(measure.name);
    return names;
}

}  // namespace tf
