// Padding examples into batches, and the seeded, resumable epoch order of a Batcher.
#include "datasets/batching.h"

#include <algorithm>
#include <cstdio>

#include "config/json_reader.h"

namespace tf::train {

namespace {

void shuffle(std::vector<int64_t>& items, Rng& rng) {  // Fisher–Yates
    for (auto i = static_cast<int64_t>(items.size()) - 1; i > 0; --i)
        std::swap(items[static_cast<std::size_t>(i)], items[static_cast<std::size_t>(rng.below(i + 1))]);
}

// Rows of `sequences` padded with kPadId to a (B, width) IndexTensor and its f32 mask (1 = pad).
std::pair<IndexTensor, Tensor> pad_rows(const std::vector<std::vector<int64_t>>& sequences, int64_t width) {
    const auto B = static_cast<int64_t>(sequences.size());
    std::vector<int64_t> values(static_cast<std::size_t>(B * width), kPadId);
    Tensor mask = Tensor::ones({B, width});  // (B, width)
    float* pad = mask.data<float>();
    for (int64_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < sequences[static_cast<std::size_t>(b)].size(); ++t) {
            const auto at = static_cast<std::size_t>(b * width) + t;
            values[at] = sequences[static_cast<std::size_t>(b)][t];
            pad[at] = 0.0f;
        }
    return {IndexTensor(std::move(values), {B, width}), mask};
}

int64_t longest(const std::vector<std::vector<int64_t>>& sequences) {
    std::size_t longest = 0;
    for (const auto& sequence : sequences) longest = std::max(longest, sequence.size());
    return static_cast<int64_t>(longest);
}

}  // namespace

Batch make_batch(const std::vector<Example>& examples, const std::vector<int64_t>& indices, bool lm) {
    if (indices.empty()) throw ValueError("make_batch: no examples");
    std::vector<std::vector<int64_t>> sources, decoder_inputs, decoder_targets;
    Batch batch;
    for (const int64_t index : indices) {
        if (index < 0 || index >= static_cast<int64_t>(examples.size()))
            throw ValueError("make_batch: index " + std::to_string(index) + " outside a split of " +
                             std::to_string(examples.size()) + " examples");
        const Example& example = examples[static_cast<std::size_t>(index)];
        const std::vector<int64_t>& target = lm ? example.src : example.tgt;
        sources.push_back(lm ? std::vector<int64_t>{} : example.src);
        decoder_inputs.push_back({kBosId});  // <bos> y_1 … y_T'
        decoder_inputs.back().insert(decoder_inputs.back().end(), target.begin(), target.end());
        decoder_targets.push_back(target);  // y_1 … y_T' <eos>
        decoder_targets.back().push_back(kEosId);
        batch.src_lengths.push_back(static_cast<int64_t>(sources.back().size()));
        batch.tgt_lengths.push_back(static_cast<int64_t>(decoder_targets.back().size()));
        batch.tokens += batch.tgt_lengths.back();
    }
    std::tie(batch.src, batch.src_padding_mask) = pad_rows(sources, longest(sources));
    std::tie(batch.tgt_in, batch.tgt_padding_mask) = pad_rows(decoder_inputs, longest(decoder_inputs));
    batch.tgt_out = pad_rows(decoder_targets, longest(decoder_targets)).first;
    return batch;
}

std::vector<Batch> evaluation_batches(const std::vector<Example>& examples, int64_t batch_size, bool lm) {
    if (batch_size < 1) throw ValueError("evaluation_batches: batch_size must be ≥ 1, got " + std::to_string(batch_size));
    std::vector<Batch> batches;
    for (int64_t start = 0; start < static_cast<int64_t>(examples.size()); start += batch_size) {
        std::vector<int64_t> indices;
        for (int64_t i = start; i < std::min<int64_t>(start + batch_size, static_cast<int64_t>(examples.size())); ++i)
            indices.push_back(i);
        batches.push_back(make_batch(examples, indices, lm));
    }
    return batches;
}

nlohmann::json BatcherState::to_json() const {
    nlohmann::json words = nlohmann::json::array();
    for (const uint64_t word : rng) {
        char hex[19];
        std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(word));
        words.push_back(hex);
    }
    return {{"epoch", epoch}, {"position", position}, {"rng", words}};
}

BatcherState BatcherState::from_json(const nlohmann::json& json, const std::string& source) {
    try {
        config::JsonReader reader(json, "");
        BatcherState state;
        state.epoch = reader.integer("epoch", {.min = 0});
        state.position = reader.integer("position", {.min = 0});
        const nlohmann::json& words = reader.raw("rng");
        const auto is_hex_word = [](const nlohmann::json& w) {
            if (!w.is_string()) return false;
            const std::string text = w.get<std::string>();
            return text.size() == 18 && text.rfind("0x", 0) == 0 &&
                   text.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
        };
        if (!words.is_array() || words.size() != 4 || !std::all_of(words.begin(), words.end(), is_hex_word))
            throw ConfigError("rng: expected 4 strings \"0x\" + 16 hex digits, got " + config::describe(words));
        for (std::size_t i = 0; i < 4; ++i) state.rng[i] = std::stoull(words[i].get<std::string>().substr(2), nullptr, 16);
        reader.finish();
        return state;
    } catch (const ConfigError& error) {
        throw DataError(source + ": batcher state: " + error.what());
    }
}

Batcher::Batcher(std::vector<Example> examples, BatcherOptions options)
    : examples_(std::move(examples)), options_(options), rng_(options.seed) {
    if (examples_.empty()) throw ValueError("Batcher: the split has no examples");
    if (options_.batch_size < 1 || options_.bucket_batches < 1)
        throw ValueError("Batcher: batch_size and bucket_batches must be ≥ 1, got " +
                         std::to_string(options_.batch_size) + " and " + std::to_string(options_.bucket_batches));
    plan_epoch();
}

std::pair<std::size_t, std::size_t> Batcher::length_key(int64_t index) const {
    const Example& example = examples_[static_cast<std::size_t>(index)];
    return {example.src.size(), options_.lm ? 0 : example.tgt.size()};
}

std::vector<std::vector<int64_t>> Batcher::cut_into_batches(const std::vector<int64_t>& order) const {
    std::vector<std::vector<int64_t>> batches;
    for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(options_.batch_size)) {
        const std::size_t end = std::min(order.size(), start + static_cast<std::size_t>(options_.batch_size));
        batches.emplace_back(order.begin() + static_cast<std::ptrdiff_t>(start), order.begin() + static_cast<std::ptrdiff_t>(end));
    }
    return batches;
}

// shuffle → (bucket: sort each chunk of bucket_batches·batch_size by length) → cut into batches
// → (bucket: shuffle the batch order, so lengths do not rise steadily through a chunk).
void Batcher::plan_epoch() {
    epoch_start_rng_ = rng_.state();
    std::vector<int64_t> order(examples_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    if (options_.shuffle) shuffle(order, rng_);
    if (options_.bucket) {
        const auto chunk = static_cast<std::size_t>(options_.batch_size * options_.bucket_batches);
        for (std::size_t start = 0; start < order.size(); start += chunk)
            std::stable_sort(order.begin() + static_cast<std::ptrdiff_t>(start),
                             order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), start + chunk)),
                             [this](int64_t a, int64_t b) { return length_key(a) < length_key(b); });
    }
    plan_ = cut_into_batches(order);
    if (options_.bucket && options_.shuffle) {
        std::vector<int64_t> batch_order(plan_.size());
        for (std::size_t i = 0; i < batch_order.size(); ++i) batch_order[i] = static_cast<int64_t>(i);
        shuffle(batch_order, rng_);
        std::vector<std::vector<int64_t>> shuffled;
        for (const int64_t i : batch_order) shuffled.push_back(std::move(plan_[static_cast<std::size_t>(i)]));
        plan_ = std::move(shuffled);
    }
}

std::vector<int64_t> Batcher::next_indices() {
    if (position_ == batches_per_epoch()) {
        ++epoch_;
        position_ = 0;
        plan_epoch();
    }
    return plan_[static_cast<std::size_t>(position_++)];
}

Batch Batcher::next() { return make_batch(examples_, next_indices(), options_.lm); }

void Batcher::restore(const BatcherState& state) {
    if (state.position < 0 || state.position > batches_per_epoch() || state.epoch < 0)
        throw ValueError("Batcher::restore: position " + std::to_string(state.position) + " of epoch " +
                         std::to_string(state.epoch) + " does not fit an epoch of " +
                         std::to_string(batches_per_epoch()) + " batches");
    rng_.set_state(state.rng);
    plan_epoch();  // every epoch has the same number of batches, so the check above holds
    epoch_ = state.epoch;
    position_ = state.position;
}

}  // namespace tf::train
