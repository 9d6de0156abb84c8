// char_transformer: a character-level decoder-only transformer (a small GPT) trained and sampled in
// one file, read top to bottom: data → batches → parameters → forward (embedding, positions, causal
// attention, MLP) → loss → backward → clip → update → sample. It uses nothing of tapeformer but its
// Tensor, ops (autograd/ops.h), tape (autograd/tape.h), Adam (train/optimizer.h) and, for --init,
// its checkpoint reader.
// It is the "lm" model of configs/char_lm.json (pre-LN blocks, GELU MLP, learned positions) with
// the framework's parameter names, so `--init` can start it from a `tapeformer train` checkpoint,
// and its own init draws the framework's weights for the same seed. From the same weights and
// batches it computes the same losses (tests/test_char_transformer_example.cpp).
//
// Dimension glossary:
//   B  lines in a batch                    T  positions in a batch: its longest line + 1
//   C  model width (channels)              V  vocabulary: 4 special tokens + the text's characters
//   H  attention heads                     D  head width, C / H
//   F  MLP hidden width                    P  learned positions, the longest T the model takes
//   L  transformer blocks
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "train/optimizer.h"
#include "train/safetensors.h"

using tf::IndexTensor, tf::Shape, tf::Tensor;

// The sizes and settings of configs/char_lm.json.
constexpr int64_t C = 128, H = 4, D = C / H, F = 512, L = 4, P = 80;
constexpr int64_t kBatchLines = 32;    // B of a full batch
constexpr int64_t kMaxLineChars = 64;  // longer lines are left out
constexpr double kLearningRate = 1e-3, kMaxGradNorm = 1.0;
// Token ids: <pad> fills short rows (the loss skips it), <bos> starts a line, <eos> ends it,
// <unk> (3) stands for a character the vocabulary lacks; characters are ids 4 … V − 1.
constexpr int64_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3, kFirstChar = 4;

[[noreturn]] void fail(const std::string& problem) {
    std::fprintf(stderr, "char_transformer: %s\n", problem.c_str());
    std::exit(2);
}

// ── 1. data: the text's lines and a vocabulary of its characters ─────────────
struct Text {
    std::vector<std::string> lines;
    std::vector<unsigned char> chars;  // the character of id kFirstChar + i is chars[i]
    std::vector<int64_t> id_of;        // byte → token id
};

// Non-blank lines of at most kMaxLineChars bytes, trailing spaces stripped. The characters are
// ranked most frequent first, ties by byte value: the order of tapeformer's "char" tokenizer.
Text read_text(const std::string& path) {
    std::ifstream in(path);
    if (!in) fail("cannot read the data file '" + path + "'");
    Text text;
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (!line.empty() && static_cast<int64_t>(line.size()) <= kMaxLineChars) text.lines.push_back(line);
    }
    if (text.lines.empty()) fail(path + ": no line of 1 to " + std::to_string(kMaxLineChars) + " characters");
    std::vector<int64_t> count(256, 0);
    for (const std::string& line : text.lines)
        for (const unsigned char c : line) ++count[c];
    for (int c = 0; c < 256; ++c)
        if (count[c] > 0) text.chars.push_back(static_cast<unsigned char>(c));
    std::stable_sort(text.chars.begin(), text.chars.end(), [&](unsigned char a, unsigned char b) { return count[a] > count[b]; });
    text.id_of.assign(256, kUnk);
    for (std::size_t i = 0; i < text.chars.size(); ++i) text.id_of[text.chars[i]] = kFirstChar + static_cast<int64_t>(i);
    return text;
}

// ── 2. batches: next-character prediction on B lines ─────────────────────────
// A line x_1 … x_n gives inputs <bos> x_1 … x_n and targets x_1 … x_n <eos>: every position
// predicts the character after it. Rows are padded with <pad> on the right to T = n_max + 1.
struct Batch {
    IndexTensor inputs, targets;  // (B, T) each
};

Batch make_batch(const Text& text, const std::vector<int64_t>& rows) {
    const auto B = static_cast<int64_t>(rows.size());
    int64_t T = 0;
    for (const int64_t row : rows) T = std::max(T, static_cast<int64_t>(text.lines[row].size()) + 1);
    std::vector<int64_t> inputs(B * T, kPad), targets(B * T, kPad);
    for (int64_t b = 0; b < B; ++b) {
        const std::string& line = text.lines[rows[b]];
        const auto n = static_cast<int64_t>(line.size());
        inputs[b * T] = kBos;
        for (int64_t t = 0; t < n; ++t)
            inputs[b * T + t + 1] = targets[b * T + t] = text.id_of[static_cast<unsigned char>(line[t])];
        targets[b * T + n] = kEos;
    }
    return {IndexTensor(inputs, {B, T}), IndexTensor(targets, {B, T})};
}

// ── 3. parameters, named as tapeformer's "lm" model names them ──────────────
using Weights = std::map<std::string, Tensor>;

// The tensor `name` of a checkpoint, which must have `shape`.
Tensor saved_tensor(const std::map<std::string, Tensor>& saved, const std::string& checkpoint, const std::string& name,
                    const Shape& shape) {
    const auto found = saved.find(name);
    if (found == saved.end()) fail(checkpoint + " holds no tensor '" + name + "'");
    if (found->second.shape() != shape)
        fail(checkpoint + ": '" + name + "' is " + tf::to_string(found->second.shape()) + ", this model's is " +
             tf::to_string(shape) + " (the text and sizes of the run that saved it?)");
    return found->second;
}

// Each parameter from `checkpoint` (a safetensors file `tapeformer train` saved) when one is given,
// else initialised: token embeddings ~ N(0, 1), positions ~ N(0, 0.02²), weight matrices
// Xavier-uniform U(−a, a) with a = √(6 / (fan_in + fan_out)), biases 0, norm gains 1 (drawn in
// the order `tapeformer train` draws them, which also zeroes <pad>'s row: no loss reads it).
Weights make_weights(int64_t V, const std::string& checkpoint, tf::Rng& rng) {
    std::map<std::string, Tensor> saved;
    if (!checkpoint.empty()) saved = tf::train::read_safetensors(checkpoint).tensors;
    Weights w;
    const auto add = [&](const std::string& name, const Shape& shape, const auto& init) {
        Tensor value = checkpoint.empty() ? init(shape) : saved_tensor(saved, checkpoint, "model." + name, shape);
        w[name] = value.set_requires_grad();
    };
    const auto normal = [&rng](double std) { return [&rng, std](const Shape& s) { return Tensor::normal(s, 0.0, std, rng); }; };
    const auto xavier = [&rng](const Shape& s) {
        const double a = std::sqrt(6.0 / static_cast<double>(s[0] + s[1]));
        return Tensor::uniform(s, -a, a, rng);
    };
    const auto zeros = [](const Shape& s) { return Tensor::zeros(s); };
    const auto ones = [](const Shape& s) { return Tensor::ones(s); };
    add("embedding.embedding.weight", {V, C}, normal(1.0));
    add("embedding.positions.weight", {P, C}, normal(0.02));
    for (int64_t l = 0; l < L; ++l) {
        const std::string block = "blocks.layers." + std::to_string(l) + ".";
        add(block + "self_attn.q_proj.weight", {C, C}, xavier), add(block + "self_attn.q_proj.bias", {C}, zeros);
        add(block + "self_attn.k_proj.weight", {C, C}, xavier), add(block + "self_attn.k_proj.bias", {C}, zeros);
        add(block + "self_attn.v_proj.weight", {C, C}, xavier), add(block + "self_attn.v_proj.bias", {C}, zeros);
        add(block + "self_attn.o_proj.weight", {C, C}, xavier), add(block + "self_attn.o_proj.bias", {C}, zeros);
        add(block + "ffn.linear1.weight", {F, C}, xavier), add(block + "ffn.linear1.bias", {F}, zeros);
        add(block + "ffn.linear2.weight", {C, F}, xavier), add(block + "ffn.linear2.bias", {C}, zeros);
        add(block + "norm1.weight", {C}, ones), add(block + "norm1.bias", {C}, zeros);
        add(block + "norm2.weight", {C}, ones), add(block + "norm2.bias", {C}, zeros);
    }
    add("blocks.norm.weight", {C}, ones), add("blocks.norm.bias", {C}, zeros);
    add("output.weight", {V, C}, xavier), add("output.bias", {V}, zeros);
    const auto saved_model = std::count_if(saved.begin(), saved.end(), [](const auto& s) { return s.first.starts_with("model."); });
    if (!checkpoint.empty() && saved_model != std::ssize(w))
        fail(checkpoint + " holds " + std::to_string(saved_model) + " model tensors, this model has " + std::to_string(w.size()));
    return w;
}

// ── 4. the model: logits for every position ──────────────────────────────────
// y = x·Wᵀ + b
Tensor dense(const Weights& w, const std::string& name, const Tensor& x) {
    return tf::linear(x, w.at(name + ".weight"), w.at(name + ".bias"));
}

// LN(x) = γ ⊙ (x − mean(x)) / √(var(x) + 1e-5) + β, over the last axis
Tensor norm(const Weights& w, const std::string& name, const Tensor& x) {
    return tf::layer_norm(x, w.at(name + ".weight"), w.at(name + ".bias"));
}

// (B, T, C) → (B, H, T, D): the C channels cut into H heads of D
Tensor split_heads(const Tensor& x) { return tf::permute(tf::reshape(x, {x.size(0), x.size(1), H, D}), {0, 2, 1, 3}); }

// Causal self-attention: head_h = softmax(Q_h·K_hᵀ/√D, the future masked)·V_h, then
// out = Concat(head_1 … head_H)·W_oᵀ + b_o. `future` (T, T) is 1 where key j > query i.
Tensor causal_attention(const Weights& w, const std::string& name, const Tensor& x, const Tensor& future) {
    const int64_t B = x.size(0), T = x.size(1);
    const Tensor q = split_heads(dense(w, name + ".q_proj", x));  // (B, H, T, D)
    const Tensor k = split_heads(dense(w, name + ".k_proj", x));  // (B, H, T, D)
    const Tensor v = split_heads(dense(w, name + ".v_proj", x));  // (B, H, T, D)
    // scores_ij = q_i·k_j / √D, and −∞ where j > i, so that softmax gives the future weight 0
    Tensor scores = tf::matmul(q, k, {.transpose_b = true}) / std::sqrt(static_cast<double>(D));  // (B, H, T, T)
    scores = tf::masked_fill(scores, future, -std::numeric_limits<double>::infinity());       // (B, H, T, T)
    const Tensor weights = tf::softmax(scores);                                                // (B, H, T, T), rows sum to 1
    const Tensor heads = tf::matmul(weights, v);                                               // (B, H, T, D)
    const Tensor merged = tf::reshape(tf::permute(heads, {0, 2, 1, 3}), {B, T, C});            // (B, T, C)
    return dense(w, name + ".o_proj", merged);                                                 // (B, T, C)
}

// MLP(x) = W_2·GELU(W_1·x + b_1) + b_2, GELU(z) = z·Φ(z)
Tensor mlp(const Weights& w, const std::string& name, const Tensor& x) {
    const Tensor hidden = tf::gelu(dense(w, name + ".linear1", x));  // (B, T, F)
    return dense(w, name + ".linear2", hidden);                       // (B, T, C)
}

// ids (B, T) → logits (B, T, V): embeddings, L blocks, a final LN, the output layer
Tensor forward(const Weights& w, const IndexTensor& ids) {
    const int64_t T = ids.shape[1];
    std::vector<double> future(T * T);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) future[i * T + j] = j > i ? 1.0 : 0.0;
    const Tensor future_mask = Tensor::from_data(future, {T, T});  // (T, T)
    // x_t = E[id_t] + P[t]: the token's embedding plus its position's
    Tensor x = tf::embedding(w.at("embedding.embedding.weight"), ids);          // (B, T, C)
    x = x + tf::slice(w.at("embedding.positions.weight"), 0, 0, T);              // (B, T, C) + (T, C)
    for (int64_t l = 0; l < L; ++l) {
        const std::string block = "blocks.layers." + std::to_string(l) + ".";
        // pre-LN residual blocks: x ← x + Attention(LN_1(x)),  x ← x + MLP(LN_2(x))
        x = x + causal_attention(w, block + "self_attn", norm(w, block + "norm1", x), future_mask);  // (B, T, C)
        x = x + mlp(w, block + "ffn", norm(w, block + "norm2", x));                                // (B, T, C)
    }
    return dense(w, "output", norm(w, "blocks.norm", x));  // logits (B, T, V)
}

// ── 5. training: loss → backward → clip → Adam ──────────────────────────────
// ‖g‖ = √(Σ g²) over every parameter; if above max_norm, g ← g·max_norm/(‖g‖ + 1e-6)
void clip_gradients(const tf::train::NamedParameters& parameters, double max_norm) {
    double sum_of_squares = 0;
    for (const auto& [name, p] : parameters) {
        const Tensor g = p.grad();  // p's shape
        const float* values = g.data<float>();
        for (int64_t i = 0; i < g.numel(); ++i) sum_of_squares += static_cast<double>(values[i]) * values[i];
    }
    const double coefficient = max_norm / (std::sqrt(sum_of_squares) + 1e-6);
    if (coefficient >= 1) return;
    for (auto [name, p] : parameters) p.set_grad(p.grad() * coefficient);
}

int main(int argc, char** argv) {
    std::map<std::string, std::string> options = {
        {"--data", "data/poetry/poems.txt"}, {"--steps", "300"}, {"--init", ""}, {"--seed", "1"}};
    for (int i = 1; i < argc; i += 2) {
        if (!options.contains(argv[i]) || i + 1 == argc)
            fail("usage: char_transformer [--data TEXT] [--steps N] [--init CHECKPOINT] [--seed N]; got '" +
                 std::string(argv[i]) + "'" + (i + 1 == argc && options.contains(argv[i]) ? " without a value" : ""));
        options[argv[i]] = argv[i + 1];
    }
    const long long steps = std::atoll(options["--steps"].c_str()), seed = std::atoll(options["--seed"].c_str());
    if (steps < 1 || seed < 0) fail("--steps must be ≥ 1 and --seed ≥ 0, got " + options["--steps"] + " and " + options["--seed"]);
    try {
        const Text text = read_text(options["--data"]);
        const int64_t V = kFirstChar + static_cast<int64_t>(text.chars.size());
        tf::Rng rng(static_cast<uint64_t>(seed));
        const Weights w = make_weights(V, options["--init"], rng);
        const tf::train::NamedParameters parameters(w.begin(), w.end());
        tf::train::Adam adam(parameters, {.beta1 = 0.9, .beta2 = 0.999, .eps = 1e-8});
        std::printf("%zu lines, V = %lld, %zu parameter tensors\n", text.lines.size(), static_cast<long long>(V), w.size());

        // Each epoch serves every line once, in a fresh random order, B lines a step.
        std::vector<int64_t> order;
        std::size_t next = 0;
        for (long long step = 1; step <= steps; ++step) {
            const auto started = std::chrono::steady_clock::now();
            if (next >= order.size()) {
                order.resize(text.lines.size());
                std::iota(order.begin(), order.end(), 0);
                for (auto i = static_cast<int64_t>(order.size()) - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
                next = 0;
            }
            const std::size_t end = std::min(order.size(), next + kBatchLines);
            const Batch batch = make_batch(text, std::vector<int64_t>(order.begin() + next, order.begin() + end));
            next = end;

            const Tensor logits = forward(w, batch.inputs);  // (B, T, V)
            // loss = −(1/N) Σ log softmax(logits)[target], over the N targets that are not <pad>
            const Tensor loss = tf::cross_entropy(logits, batch.targets, {.ignore_index = kPad});  // ()
            const double loss_value = loss.item();
            tf::Tape::current().backward(loss);  // ∂loss/∂p into every parameter's grad, by the recorded ops in reverse
            tf::Tape::current().clear();
            clip_gradients(parameters, kMaxGradNorm);
            // p ← p − lr·m̂/(√v̂ + ε), m̂ and v̂ the bias-corrected running means of g and g²
            adam.step(kLearningRate);
            adam.zero_grad();
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
            std::printf("step %lld | loss %.6f | %.1f ms\n", step, loss_value, ms);
        }

        // ── 6. sampling: x_{t+1} ~ softmax(logits_t), one character at a time until <eos> ──
        const tf::NoGradGuard no_tape;
        for (int sample = 0; sample < 5; ++sample) {
            std::vector<int64_t> ids = {kBos};
            std::string line;
            while (static_cast<int64_t>(line.size()) < kMaxLineChars) {
                const auto t = static_cast<int64_t>(ids.size());
                const Tensor logits = forward(w, IndexTensor(ids, {1, t}));          // (1, t, V)
                const Tensor probs = tf::softmax(tf::slice(logits, 1, t - 1, t));  // (1, 1, V): the next token's
                const float* p = probs.data<float>();
                // id = the first v with p_0 + … + p_v > u, u ~ U[0, 1): id is drawn with probability p_id
                int64_t id = 0;
                for (double u = rng.uniform(); id < V - 1 && (u -= p[id]) >= 0;) ++id;
                if (id == kEos) break;
                ids.push_back(id);
                line += id >= kFirstChar ? static_cast<char>(text.chars[id - kFirstChar]) : '?';
            }
            std::printf("sample: %s\n", line.c_str());
        }
    } catch (const std::exception& error) {
        fail(error.what());
    }
}
