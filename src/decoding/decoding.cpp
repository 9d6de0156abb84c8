// Greedy, beam and sampled decoding on top of SequenceModel::decode_step.
#include "decoding/decoding.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "autograd/error.h"
#include "autograd/ops.h"
#include "autograd/tape.h"

namespace tf::train {

ModelInput select_batch_rows(const ModelInput& input, const std::vector<int64_t>& rows) {
    ModelInput out;
    if (input.src.numel() == 0) return out;
    const int64_t S = input.src.shape[1];
    int64_t longest = 0;
    for (int64_t row : rows) longest = std::max(longest, input.src_lengths.empty() ? S : input.src_lengths[row]);
    std::vector<int64_t> ids;
    std::vector<double> padding;
    for (int64_t row : rows) {
        const int64_t length = input.src_lengths.empty() ? S : input.src_lengths[row];
        out.src_lengths.push_back(length);
        for (int64_t s = 0; s < longest; ++s) {
            ids.push_back(s < length ? input.src.values[row * S + s] : 0);
            padding.push_back(s < length ? 0.0 : 1.0);
        }
    }
    const int64_t count = static_cast<int64_t>(rows.size());
    out.src = IndexTensor(ids, {count, longest});
    out.src_padding_mask = Tensor::from_data(padding, {count, longest});
    return out;
}

std::vector<std::vector<int64_t>> greedy_decode(SequenceModel& model, const ModelInput& input, const DecodeOptions& options,
                                                const ItemDecoded& on_item) {
    NoGradGuard no_grad;
    const int64_t batch = input.src.numel() ? input.src.shape[0] : 1;
    DecodeState state = model.begin_decode(input, options.cache);
    std::vector<std::vector<int64_t>> prefix(static_cast<std::size_t>(batch), std::vector<int64_t>{options.bos});
    std::vector<bool> finished(static_cast<std::size_t>(batch), false);
    // The output of a row: its tokens after <bos>, up to its first <eos>.
    const auto output_of = [&](int64_t b) {
        const auto& row = prefix[static_cast<std::size_t>(b)];
        return std::vector<int64_t>(row.begin() + 1, std::find(row.begin() + 1, row.end(), options.eos));
    };
    for (int64_t step = 0; step < options.max_length; ++step) {
        std::vector<int64_t> flat;
        flat.reserve(static_cast<std::size_t>(batch * (step + 1)));
        for (const auto& row : prefix) flat.insert(flat.end(), row.begin(), row.end());
        // BEGIN SOLUTION A4.1
        const IndexTensor next = argmax(model.decode_step(state, IndexTensor(std::move(flat), {batch, step + 1})));  // (B)
        bool all_done = true;
        for (int64_t b = 0; b < batch; ++b) {
            const bool was_finished = finished[b];
            // A finished row keeps being fed <eos> so every row has the same length.
            prefix[b].push_back(was_finished ? options.eos : next.values[b]);
            finished[b] = prefix[b].back() == options.eos;
            if (finished[b] && !was_finished && on_item) on_item(b, output_of(b));
            all_done = all_done && finished[b];
        }
        if (all_done) break;
        // END SOLUTION
    }
    std::vector<std::vector<int64_t>> result;
    for (int64_t b = 0; b < batch; ++b) {
        result.push_back(output_of(b));
        if (!finished[b] && on_item) on_item(b, result.back());  // cut off by max_length
    }
    return result;
}

namespace {

struct Hypothesis {
    std::vector<int64_t> tokens;  // starts with <bos>
    double log_prob = 0;
};

// The GNMT length penalty's divisor for `length` tokens: ((5 + length)/6)^α, growing with length.
double length_divisor(double length, double alpha) { return std::pow((5.0 + length) / 6.0, alpha); }

double penalised(const Hypothesis& h, double alpha) {
    return h.log_prob / length_divisor(static_cast<double>(h.tokens.size() - 1), alpha);
}

// Whether no live hypothesis can beat the best finished one. A live one's log-probability only
// falls as it grows, and the divisor only grows, so its score can rise at most to
// log p / divisor(max_length).
bool finished_beats_live(const std::vector<Hypothesis>& finished, const std::vector<Hypothesis>& live, double alpha,
                         int64_t max_length) {
    double best_finished = -std::numeric_limits<double>::infinity(), best_live = -std::numeric_limits<double>::infinity();
    for (const Hypothesis& h : finished) best_finished = std::max(best_finished, penalised(h, alpha));
    for (const Hypothesis& h : live) best_live = std::max(best_live, h.log_prob / length_divisor(static_cast<double>(max_length), alpha));
    return !finished.empty() && best_finished >= best_live;
}

std::vector<int64_t> beam_search_one(SequenceModel& model, const ModelInput& single, const DecodeOptions& options,
                                     const BeamOptions& beam) {
    DecodeState state = model.begin_decode(single, options.cache);
    std::vector<Hypothesis> live = {{{options.bos}, 0.0}};
    std::vector<Hypothesis> finished;
    for (int64_t step = 0; step < options.max_length && !live.empty(); ++step) {
        // BEGIN SOLUTION A4.2
        const int64_t count = static_cast<int64_t>(live.size());
        std::vector<int64_t> flat;
        for (const auto& h : live) flat.insert(flat.end(), h.tokens.begin(), h.tokens.end());
        const Tensor log_probs = log_softmax(model.decode_step(state, IndexTensor(std::move(flat), {count, step + 1})));  // (k, V)
        const int64_t vocab = log_probs.size(-1);
        // Every (hypothesis, token) extension, best first; keep beam_size of them.
        std::vector<std::pair<double, int64_t>> candidates;
        for (int64_t k = 0; k < count; ++k)
            for (int64_t v = 0; v < vocab; ++v) candidates.emplace_back(live[k].log_prob + log_probs.at({k, v}), k * vocab + v);
        const auto keep = std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(beam.beam_size));
        std::partial_sort(candidates.begin(), candidates.begin() + static_cast<long>(keep), candidates.end(),
                          [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<Hypothesis> next;
        std::vector<int64_t> parents;  // the state row each surviving hypothesis continues from
        for (std::size_t i = 0; i < keep; ++i) {
            const int64_t parent = candidates[i].second / vocab;
            Hypothesis h = live[parent];
            h.tokens.push_back(candidates[i].second % vocab);
            h.log_prob = candidates[i].first;
            if (h.tokens.back() == options.eos) {
                finished.push_back(std::move(h));
            } else {
                next.push_back(std::move(h));
                parents.push_back(parent);
            }
        }
        live = std::move(next);
        if (!live.empty()) reorder_decode_state(state, parents);
        // END SOLUTION
        // Stopping once beam_size hypotheses had finished, as this once did, let unlikely early
        // <eos>s fill the count while the likely hypothesis was still growing (a beam of 3 cut a
        // copy-task "aaeegd" to "aa", though greedy decoding copied it).
        if (finished_beats_live(finished, live, beam.length_penalty, options.max_length)) break;
    }
    // Hypotheses still open compete as they are when max_length cut them off; after an early stop
    // none can beat the best finished one (finished ones come first, so they win a tie).
    finished.insert(finished.end(), live.begin(), live.end());
    const auto best = std::max_element(finished.begin(), finished.end(), [&](const auto& a, const auto& b) {
        return penalised(a, beam.length_penalty) < penalised(b, beam.length_penalty);
    });
    std::vector<int64_t> tokens(best->tokens.begin() + 1, best->tokens.end());
    if (!tokens.empty() && tokens.back() == options.eos) tokens.pop_back();
    return tokens;
}

}  // namespace

std::vector<std::vector<int64_t>> beam_search(SequenceModel& model, const ModelInput& input, const DecodeOptions& options,
                                              const BeamOptions& beam, const ItemDecoded& on_item) {
    if (beam.beam_size < 1) throw ValueError("beam_search: beam_size must be ≥ 1, got " + std::to_string(beam.beam_size));
    NoGradGuard no_grad;
    const int64_t batch = input.src.numel() ? input.src.shape[0] : 1;
    std::vector<std::vector<int64_t>> result;
    for (int64_t b = 0; b < batch; ++b) {
        result.push_back(beam_search_one(model, select_batch_rows(input, {b}), options, beam));
        if (on_item) on_item(b, result.back());
    }
    return result;
}

std::string sample_options_problem(const SampleOptions& sample) {
    if (!(sample.temperature > 0) || !std::isfinite(sample.temperature))
        return "temperature must be a finite number > 0, got " + std::to_string(sample.temperature);
    if (sample.top_k < 0) return "top_k must be ≥ 0 (0 = every token), got " + std::to_string(sample.top_k);
    if (!(sample.top_p > 0 && sample.top_p <= 1)) return "top_p must be in (0, 1], got " + std::to_string(sample.top_p);
    return "";
}

namespace {

// The tokens a draw may pick, most likely first, with unnormalised probabilities:
// p ∝ exp(logit / τ), restricted to the k largest logits, then to the shortest head of that list
// whose probability mass reaches top_p.
struct Candidates {
    std::vector<int64_t> tokens;
    std::vector<double> weights;
};

Candidates sampling_candidates(const std::vector<double>& logits, const SampleOptions& sample) {
    Candidates c;
    c.tokens.resize(logits.size());
    std::iota(c.tokens.begin(), c.tokens.end(), 0);
    std::stable_sort(c.tokens.begin(), c.tokens.end(), [&](int64_t a, int64_t b) { return logits[a] > logits[b]; });
    if (sample.top_k > 0 && sample.top_k < static_cast<int64_t>(c.tokens.size())) c.tokens.resize(static_cast<std::size_t>(sample.top_k));
    for (int64_t token : c.tokens) c.weights.push_back(std::exp((logits[token] - logits[c.tokens[0]]) / sample.temperature));
    if (sample.top_p < 1) {
        const double total = std::accumulate(c.weights.begin(), c.weights.end(), 0.0);
        double mass = 0;
        std::size_t keep = 0;
        while (keep < c.weights.size() && mass < sample.top_p * total) mass += c.weights[keep++];
        c.tokens.resize(keep), c.weights.resize(keep);
    }
    return c;
}

// One draw from the candidates: u ~ U(0, Σw), the first token whose running sum passes u.
int64_t draw(const Candidates& c, Rng& rng) {
    double u = rng.uniform() * std::accumulate(c.weights.begin(), c.weights.end(), 0.0);
    std::size_t pick = 0;
    while (pick + 1 < c.weights.size() && u >= c.weights[pick]) u -= c.weights[pick++];
    return c.tokens[pick];
}

}  // namespace

std::vector<int64_t> sample_continuation(SequenceModel& model, const std::vector<int64_t>& prompt, const DecodeOptions& options,
                                         const SampleOptions& sample, Rng& rng, const TokenSampled& on_token) {
    if (const std::string problem = sample_options_problem(sample); !problem.empty()) throw ValueError("sample: " + problem);
    NoGradGuard no_grad;
    DecodeState state = model.begin_decode(ModelInput{}, options.cache);
    std::vector<int64_t> prefix = {options.bos};
    prefix.insert(prefix.end(), prompt.begin(), prompt.end());
    std::vector<int64_t> generated;
    for (int64_t step = 0; step < options.max_length; ++step) {
        const std::vector<double> logits =
            model.decode_step(state, IndexTensor(prefix, {1, static_cast<int64_t>(prefix.size())})).to_vector();
        const int64_t token = draw(sampling_candidates(logits, sample), rng);
        if (token == options.eos) break;
        generated.push_back(token);
        prefix.push_back(token);
        if (on_token) on_token(token);
    }
    return generated;
}

}  // namespace tf::train
