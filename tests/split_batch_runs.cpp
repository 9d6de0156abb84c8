// Runs whose batches are computed in pieces, and how far two runs are apart.
#include "split_batch_runs.h"

#include "catch.h"

#include <algorithm>
#include <cmath>

#include "run_helpers.h"
#include "train/run_dir.h"

namespace tf::test {

const config::Json kPiecesTransformer = {{"type", "transformer"}, {"d_model", 16},      {"heads", 2},
                                         {"encoder_layers", 1},   {"decoder_layers", 1}, {"ffn_hidden", 32},
                                         {"dropout", 0.2},        {"attention_dropout", 0.1}, {"max_length", 16}};
const config::Json kPiecesGruAttention = {{"type", "rnn_seq2seq"}, {"cell", "gru"},       {"embedding_size", 12},
                                          {"hidden_size", 16},     {"num_layers", 2},     {"attention", "additive"},
                                          {"dropout", 0.3}};

train::RunConfig pieces_run(const config::Json& model, int64_t max_steps, int64_t accumulate_steps) {
    const config::Json root = {
        {"name", "pieces"},
        {"seed", 4},
        {"threads", 1},
        {"model", model},
        // Lengths 2–9: the pieces of a batch are padded to different widths than the whole.
        {"data", {{"source", "synthetic"}, {"task", "copy"}, {"num_symbols", 6}, {"min_length", 2}, {"max_length", 9},
                  {"train_size", 44}, {"valid_size", 8}, {"test_size", 8}, {"batch_size", 8}}},
        // SGD, not Adam: Adam divides each gradient by its own RMS, so a parameter whose exact
        // gradient is 0 (the key projection's bias, which softmax's shift invariance cancels) moves
        // ±lr a step on rounding noise alone — differently in any two summation orders.
        {"optimizer", {{"name", "sgd"}, {"lr", 0.1}, {"momentum", 0.9}, {"clip_grad_norm", 1.0}}},
        {"train", {{"max_steps", max_steps}, {"log_every", 1}, {"eval_every", 0}, {"checkpoint_every", 0},
                   {"accumulate_steps", accumulate_steps}}},
    };
    return train::read_run_config(root, "pieces");
}

double largest_relative_gap(const std::string& run_dir_a, const std::string& run_dir_b) {
    const train::RunDirectory a(run_dir_a), b(run_dir_b);
    const auto losses_a = logged_losses(a.metrics()), losses_b = logged_losses(b.metrics());
    REQUIRE(losses_a.size() == losses_b.size());
    REQUIRE(!losses_a.empty());
    double gap = 0;
    for (std::size_t i = 0; i < losses_a.size(); ++i) {
        REQUIRE(losses_a[i].first == losses_b[i].first);
        gap = std::max(gap, std::abs(losses_a[i].second - losses_b[i].second) / std::abs(losses_a[i].second));
    }
    // The parameters as one vector θ: ‖θ_a − θ_b‖ / ‖θ_a‖ (a tensor that is all rounding noise, like
    // that bias, weighs by its size, not by its own scale).
    const auto tensors_a = tensor_values(a.latest()), tensors_b = tensor_values(b.latest());
    REQUIRE(tensors_a.size() == tensors_b.size());
    double difference_squared = 0, size_squared = 0;
    for (const auto& [name, values_a] : tensors_a) {
        if (name.rfind("model.", 0) != 0) continue;
        INFO(name);
        REQUIRE(tensors_b.count(name) == 1);
        const std::vector<double>& values_b = tensors_b.at(name);
        REQUIRE(values_a.size() == values_b.size());
        for (std::size_t i = 0; i < values_a.size(); ++i) {
            difference_squared += (values_a[i] - values_b[i]) * (values_a[i] - values_b[i]);
            size_squared += values_a[i] * values_a[i];
        }
    }
    REQUIRE(size_squared > 0);
    gap = std::max(gap, std::sqrt(difference_squared / size_squared));
    return gap;
}

}  // namespace tf::test
